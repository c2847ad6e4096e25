#!/usr/bin/env bash
# Debian packages the demo and the test suite use, installed only when missing, with one apt-get update:
#   espeak-ng, sox, ffmpeg   speech and audio for the demo, ART and the audio marks
#   fonts-dejavu-core        Cyrillic text in generated images and visible watermarks
#   tesseract-ocr(-rus,-eng)  the cascade's text recognition (tests/cascade, the demo's image-text tasks)
#   festival, festvox-ru     Russian speech the packaged Whisper base can hear (demo audio, cascade tests)
#   chromium                 report, compare and platform pages tested in a real headless browser (Playwright)
#   postgresql               the platform's PostgreSQL tests start a throwaway cluster with initdb/pg_ctl
#   slurm-wlm, munge         tests/scaleout start a one-node Slurm and submit examples/slurm's job array
#   npm                      scripts/wordnet_data.py fetches WordNet 3.0 (MWS-Vision-Bench's METEOR synonyms)
# Never fatal here: outside CI a test whose package is missing skips and says why; in CI (CI set) a skip
# fails the run (tests/conftest.py), so a package that could not be installed is seen.
set -u
need=()
for cmd in espeak-ng sox ffmpeg chromium; do command -v "$cmd" >/dev/null 2>&1 || need+=("$cmd"); done
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
for lang in rus eng; do
  compgen -G "/usr/share/tesseract-ocr/*/tessdata/$lang.traineddata" >/dev/null || need+=("tesseract-ocr-$lang")
done
command -v text2wave >/dev/null 2>&1 || need+=(festival)
compgen -G "/usr/share/festival/voices/russian/msu_ru_nsh_clunits*" >/dev/null || need+=(festvox-ru)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
[ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] || need+=(slurm-wlm)
[ -x /usr/sbin/munged ] || need+=(munge)
command -v npm >/dev/null 2>&1 || need+=(npm)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "note: missing system packages (${need[*]}); install them for the full demo and test suite"
  exit 0
fi
echo "installing system packages: ${need[*]}"
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; } \
  || echo "warning: could not install ${need[*]}; tests that need them will be skipped"
exit 0
