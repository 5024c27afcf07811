#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine: runs a command and, if it has not ended after LIMIT seconds, records why it hangs
# before killing it: a thread dump of every JVM (kill -3 goes to the loader server's log), the
# Python stacks of every Python process (faulthandler, on SIGABRT), nvidia-smi, and the servers' logs.
#   LIMIT=120 bash tools/gpu/watchdog.sh COMMAND [ARGS...]
# Everything lands in $OUT/watchdog/.
set -u
OUT=${OUT:-/tmp/out}; LIMIT=${LIMIT:-120}
dir="$OUT/watchdog"; mkdir -p "$dir"
export PYTHONFAULTHANDLER=1
"$@" &
pid=$!
for ((i = 0; i < LIMIT; i++)); do
  kill -0 "$pid" 2>/dev/null || { wait "$pid"; exit $?; }
  sleep 1
done
echo "watchdog: still running after ${LIMIT}s; dumping threads" | tee "$dir/summary.txt"
ps -eo pid,ppid,etimes,stat,args --forest > "$dir/ps.txt"
nvidia-smi > "$dir/nvidia-smi.txt" 2>&1
nvidia-smi -q -d UTILIZATION,POWER,CLOCK >> "$dir/nvidia-smi.txt" 2>&1
# which process's kernels hold the multiprocessors
nvidia-smi pmon -c 3 -s u > "$dir/pmon.txt" 2>&1
# the kernels each process has running (cuda-gdb, where the machine has it)
gdb=$(command -v cuda-gdb || ls /usr/local/cuda*/bin/cuda-gdb 2>/dev/null | head -1)
if [ -n "$gdb" ]; then
  for p in $(pgrep -f 'loader-serve|python3'); do
    echo "== pid $p: $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-100)" >> "$dir/kernels.txt"
    timeout 90 "$gdb" -p "$p" -batch -ex 'info cuda kernels' -ex 'info cuda blocks' -ex 'detach' >> "$dir/kernels.txt" 2>&1
  done
else
  echo "no cuda-gdb" > "$dir/kernels.txt"
fi
for j in $(pgrep -f 'java'); do kill -3 "$j" 2>/dev/null; done
sleep 3
i=0
# the loader server writes to server.log beside its socket (--socket DIR/loader.sock)
for j in $(pgrep -f 'java'); do
  sock=$(tr '\0' '\n' < "/proc/$j/cmdline" 2>/dev/null | grep -A1 -x -- '--socket' | tail -1)
  [ -n "$sock" ] && [ -f "$(dirname "$sock")/server.log" ] && cp "$(dirname "$sock")/server.log" "$dir/server-$((i++)).log"
  cp "/proc/$j/status" "$dir/java-$j-status.txt" 2>/dev/null
  # its log may be unlinked already: read it through the process's own stdout
  cat "/proc/$j/fd/1" > "$dir/java-$j-stdout.txt" 2>/dev/null
done
for log in /tmp/zarr-direct-*/server.log "${TMPDIR:-/tmp}"/zarr-direct-*/server.log; do
  [ -f "$log" ] && cp "$log" "$dir/server-$((i++)).log"
done
for p in $(pgrep -f 'python3'); do kill -ABRT "$p" 2>/dev/null; done
sleep 2
pkill -9 -P "$pid" 2>/dev/null; kill -9 "$pid" 2>/dev/null
pkill -9 -f 'loader-serve' 2>/dev/null
wait "$pid" 2>/dev/null
exit 124
