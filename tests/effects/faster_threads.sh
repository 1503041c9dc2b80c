#!/usr/bin/env bash
# `predict`'s "faster at T threads" line (2026-12-07): on a measured CPU it names another profiled
# thread count whose predicted epoch is at least 1.05x as fast, and only one whose every op the
# profile holds. A copy of the shipped AMX profile under a device name of its own: asked for 2
# threads, lstm_text_generation is named faster at 1 (its shipped rows: 1.91x); asked for 1, no
# line (2 threads are slower); with the 1-thread rows of the step's ops taken out (the 1-thread
# microbenchmarks kept), no line at 2 threads and no error, and the JSON has no faster_threads.
# Usage: faster_threads.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

device="Test CPU (faster threads)"
# copy SRC DST KEEP_ONE_THREAD_ROWS: the shipped AMX profile renamed, with or without its 1-thread
# op rows.
copy() {
  python3 - "$@" "$device" <<'EOF'
import json, sys
src, dst, keep, device = sys.argv[1:]
p = json.load(open(src))
p["device"]["model"] = device
if keep == "no":
    p["measurements"] = [m for m in p["measurements"] if m["threads"] != 1]
json.dump(p, open(dst, "w"))
EOF
}
lstm() { "$bin" predict lstm_text_generation --on "device:$device" "$@"; }

copy data/profiles/dev-cpu-intel-xeon-amx.json "$dir/all.json" yes
copy data/profiles/dev-cpu-intel-xeon-amx.json "$dir/two.json" no
"$bin" profile import "$dir/all.json" >/dev/null
lstm --threads 2 >"$dir/out.txt"
line=$(grep '^faster at' "$dir/out.txt") || { echo "no 'faster at' line at 2 threads" >&2; exit 1; }
echo "$line"
case "$line" in "faster at 1 thread: "*", 1.91x as fast as at 2, "*) ;;
  *) echo "unexpected line: $line" >&2; exit 1 ;; esac
if lstm --threads 1 | grep -q '^faster at'; then
  echo "a line at 1 thread, where 2 threads are predicted slower" >&2
  exit 1
fi

export EPOCHCOST_PROFILES=$dir/two.sqlite
"$bin" profile import "$dir/two.json" >/dev/null
lstm --threads 2 >"$dir/out.txt"
if grep -q '^faster at' "$dir/out.txt"; then
  echo "a line for 1 thread, whose ops the profile lacks" >&2
  exit 1
fi
lstm --threads 2 --json | python3 -c "import json,sys; sys.exit('faster_threads' in json.load(sys.stdin))" ||
  { echo "JSON has faster_threads without the 1-thread rows" >&2; exit 1; }
echo "without the 1-thread rows: no line, no faster_threads"
