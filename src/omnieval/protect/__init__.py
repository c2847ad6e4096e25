"""Benchmark protection: watermarks (image, audio, video), their detection, and leak checks.

Tools that a dataset owner runs on their data before release (MERA Multi §3.4, Appendix C):
marks that survive ordinary re-encoding, detection reports, and contamination checks.
"""

from omnieval.protect.audio_mark import detect_audio, embed_audio
from omnieval.protect.detection import Detection
from omnieval.protect.image_invisible import detect_image, embed_image
from omnieval.protect.keys import keyed_rng

__all__ = ["Detection", "detect_audio", "detect_image", "embed_audio", "embed_image", "keyed_rng"]
