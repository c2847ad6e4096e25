"""Results in other tools' formats: the Hugging Face Hub's evaluation results (``omnieval export ...``)."""

from omnieval.interchange.hf_eval_results import write_hf_eval_results

__all__ = ["write_hf_eval_results"]
