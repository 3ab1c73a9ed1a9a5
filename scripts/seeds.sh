#!/usr/bin/env bash
# Every seed paper's tables, measured on this CPU, written as Markdown into
# docs/seeds/ (one file per CPU and backend, named from the CPU's model name,
# family and model, and the backend) with a verdict on each claim, and the
# plots drawn from them: c/B against message size per backend, and the
# advantage bounds against the number of messages.
#
#   scripts/seeds.sh                 the 128-bit AES-NI path (the papers' setting)
#                                    and the widest path this CPU has
#   scripts/seeds.sh --quick         medians of short runs instead of 000's method
#   scripts/seeds.sh --no-plots      tables only
#   scripts/seeds.sh --backend NAME  one backend only
#
# The plots need Python's matplotlib (PyPI); where it is missing the script
# makes a virtual environment under target/ and installs it there. Nothing in
# CI runs this script: its runs take minutes and want a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

method=(--paper-method)
plots=1
backends=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) method=(--quick); shift ;;
        --no-plots) plots=0; shift ;;
        --backend) backends+=("${2:?--backend takes a name}"); shift 2 ;;
        *) echo "seeds.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done

cargo build --release --quiet -p gcmsiv-bench
bench=target/release/gcmsiv-bench
out=docs/seeds

if [ ${#backends[@]} -eq 0 ]; then
    # The 128-bit path where the CPU has AES-NI, then the widest (the one
    # `Backend::select` picks), once if they are the same.
    if grep -qw aes /proc/cpuinfo && grep -qw pclmulqdq /proc/cpuinfo; then
        backends+=(aesni-clmul)
    fi
    backends+=("")
fi

made=()
for b in "${backends[@]}"; do
    args=("${method[@]}" --seeds-dir "$out")
    [ -n "$b" ] && args+=(--backend "$b")
    file=$("$bench" "${args[@]}")
    case " ${made[*]-} " in *" $file "*) continue ;; esac
    made+=("$file")
    echo "seeds.sh: wrote $file"
done

if [ "$plots" = 1 ]; then
    python=python3
    if ! "$python" -c 'import matplotlib' 2>/dev/null; then
        venv=target/seeds-venv
        [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
        "$venv/bin/python" -c 'import matplotlib' 2>/dev/null || "$venv/bin/pip" install --quiet matplotlib
        python="$venv/bin/python"
    fi
    "$python" scripts/seeds_plot.py "$out"
fi

python3 scripts/seeds_summary.py
