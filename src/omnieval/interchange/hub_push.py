"""``omnieval push``: a run's ``.eval_results`` files uploaded to a Hub model repository with huggingface_hub.

The files are written to a temporary folder first: the run directory is only read, whatever the Hub answers.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from omnieval.errors import ConfigError, StoreError
from omnieval.interchange.hf_eval_results import write_hf_eval_results

__all__ = ["push_eval_results"]


def push_eval_results(
    run_dir: Path,
    *,
    repo: str,
    token: str | None = None,
    endpoint: str | None = None,
    revision: str | None = None,
) -> str:
    """Upload ``.eval_results/*.yaml`` of ``run_dir`` to the model repo ``repo``; the commit's URL."""
    from huggingface_hub import HfApi, get_token
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    if not (run_dir / "results.json").exists():
        raise StoreError(f"{run_dir / 'results.json'} does not exist: not a finished omnieval run directory")
    token = token or get_token()
    if not token:
        raise ConfigError("omnieval push needs a Hugging Face token: set HF_TOKEN or run `hf auth login`")
    api = HfApi(endpoint=endpoint, token=token)
    with tempfile.TemporaryDirectory(prefix="omnieval-push-") as tmp:
        write_hf_eval_results(run_dir, model_id=repo, output=Path(tmp))
        try:
            info = api.upload_folder(
                repo_id=repo,
                repo_type="model",
                folder_path=tmp,
                revision=revision,
                allow_patterns=[".eval_results/*.yaml"],
                commit_message=f"omnieval: evaluation results of {run_dir.name}",
            )
        except (RepositoryNotFoundError, RevisionNotFoundError) as exc:
            raise ConfigError(
                f"omnieval push: model repository {repo!r} not found or not writable with this token "
                f"({type(exc).__name__}); create it first or check --repo"
            ) from None
        except HfHubHTTPError as exc:
            raise ConfigError(f"omnieval push to {repo!r} failed: {str(exc).splitlines()[0]}") from None
    return str(getattr(info, "commit_url", info))
