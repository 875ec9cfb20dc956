# Sourced by the yardstick scripts (after setting `here` to their directory): where the
# repository, corpus and Python venv are, and one thread for every numeric library.
root="$(cd "$here/../.." && pwd)"
corpus="${CORPUS:-$root/corpus/yardstick}"
venv="${YARDSTICK_VENV:-$root/.build-yardstick/venv}"
python="$venv/bin/python"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMEXPR_NUM_THREADS=1
