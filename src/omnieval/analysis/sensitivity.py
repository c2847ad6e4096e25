"""Prompt sensitivity as in MERA Multi's Appendix E.2: OLS ``metric ~ C(prompt) + C(model) + C(engine)``
with a two-sided t-test per prompt coefficient (H0: β_p = 0) at α = 0.05.

The first prompt (sorted) is the baseline category, as the paper's "baseline prompt (0)". A factor with
one level (one engine, one model) carries no information and is left out of the formula, which the
output says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["prompt_sensitivity"]

FACTORS = ("prompt", "model", "engine")


def prompt_sensitivity(
    rows: Sequence[dict[str, Any]], *, alpha: float = 0.05, extra_factors: Sequence[str] = ()
) -> dict[str, Any]:
    """Fit the OLS on rows ``{"metric", "prompt", "model", "engine", ...}`` and test every prompt.

    Returns the formula actually fitted, the baseline prompt, one row per other prompt (coefficient,
    standard error, t, two-sided p, significant) and the number of observations.
    """
    # first: the 'analysis' extra names statsmodels, which brings pandas
    import statsmodels.formula.api as smf

    # isort: split
    import pandas as pd

    frame = pd.DataFrame(list(rows))
    if frame.empty or "metric" not in frame:
        raise ValueError("prompt sensitivity needs rows with a 'metric' value")
    frame["prompt"] = frame["prompt"].astype(str)
    prompts = sorted(frame["prompt"].unique())
    if len(prompts) < 2:
        raise ValueError(f"prompt sensitivity needs at least two prompts, found {prompts}")
    used, dropped = [], []
    for factor in (*FACTORS, *extra_factors):
        if factor not in frame:
            dropped.append(factor)
        elif factor == "prompt" or frame[factor].astype(str).nunique() > 1:
            used.append(factor)
        else:
            dropped.append(factor)
    terms = [f"C({f}, Treatment(reference={prompts[0]!r}))" if f == "prompt" else f"C({f})" for f in used]
    formula = "metric ~ " + " + ".join(terms)
    fit = smf.ols(formula, data=frame.assign(metric=frame["metric"].astype(float))).fit()
    out = []
    for prompt in prompts[1:]:
        name = f"{terms[0]}[T.{prompt}]"
        p_value = float(fit.pvalues[name])
        out.append(
            {
                "prompt": prompt,
                "coef": float(fit.params[name]),
                "std_err": float(fit.bse[name]),
                "t": float(fit.tvalues[name]),
                "p_value": p_value,
                "significant": bool(p_value < alpha),
            }
        )
    columns = fit.model.exog.shape[1]
    warning = (
        f"the design is rank-deficient (rank {fit.model.rank} < {columns} columns): some factors are "
        "collinear "
        "with the prompt, so its coefficients are not identifiable"
        if fit.model.rank < columns
        else None
    )
    return {
        "formula": formula.replace(terms[0], "C(prompt)"),
        "warning": warning,
        "baseline_prompt": prompts[0],
        "dropped_factors": dropped,
        "n_obs": int(fit.nobs),
        "alpha": alpha,
        "prompts": out,
        "prompt_sensitive": any(r["significant"] for r in out),
    }
