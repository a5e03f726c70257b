# The classifier's training run on a lent GPU machine (vision/training/train.py docstring; docs/performance.md,
# 2026-12-04 evening). Here: python -m vision.training.carry pack .train --svg-decks SVG; then, on the machine,
# from the repository root with .train carried:  bash vision/training/lent_machine.sh 180 3 cuda 15 / | tee $OUT/run.log
# usage: lent_machine.sh RENDER_SECONDS TRAIN_MINUTES DEVICE LOADER_WORKERS FONT_ROOT  (env: G S F NF shards, DATA, OUT)
set -o pipefail
R=${1:-200}; M=${2:-3}; DEV=${3:-cuda}; W=${4:-15}; FR=${5:-/}
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 GUANDAN_TABLE_CACHE=${GUANDAN_TABLE_CACHE:-/tmp/gcache}
D0=${DATA:-/tmp/d}; rm -rf $D0; mkdir -p $D0
t0=$(date +%s); el() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
nproc; nvidia-smi --query-gpu=name,memory.used --format=csv 2>/dev/null
python3 -c "import cv2, torch, PIL, numpy; print(cv2.__version__, torch.__version__, PIL.__version__, numpy.__version__, torch.cuda.is_available())"
DS=$(python3 -m vision.training.carry unpack .train --font-root $FR) || exit 1
el "unpacked: $DS"
python3 -c "
import sys; from multiprocessing import Pool; from vision.artwork import load_deck
with Pool(16) as p: p.map(load_deck, sys.argv[1:], chunksize=1)
" $DS || exit 1
el "faces cached"
python3 -m vision.training.make_data --designs $DS --fonts 4 --zones 100000 --shards ${G:-6} --workers ${G:-6} --seconds $R --classifier-only --seed 0 --out $D0/gnome > $D0/gnome.log 2>&1 &
python3 -m vision.training.make_data --svg-decks .train/decks --zones 100000 --shards ${S:-2} --workers ${S:-2} --seconds $R --classifier-only --seed 100 --out $D0/svg > $D0/svg.log 2>&1 &
python3 -m vision.training.make_data --fonts-only --fonts ${NF:-40} --zones 100000 --shards ${F:-7} --workers ${F:-7} --seconds $R --classifier-only --seed 900 --out $D0/font > $D0/font.log 2>&1 &
wait
cat $D0/*.log
el "rendered"
python3 -m vision.training.train classifier $D0/gnome $D0/svg $D0/font --vary --device $DEV --workers $W --batch 256 --epochs 500 --minutes $M --threads 4 --out ${OUT:-/tmp/out} || exit 1
el "trained"
