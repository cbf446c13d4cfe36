#!/usr/bin/env python3
"""Measures how whittle stops and what it leaves behind, with real processes and signals.

  bench/safety.py sigterm [--trials 1000] [--max-delay-ms 40]
      Starts whittle on tests that hang, sends SIGTERM after a random delay (the first
      milliseconds, while tests start), and counts the runs that do not end within 10 s (hangs),
      the scratch directories and lock files left, and the test processes still alive.
  bench/safety.py survivors
      Counts the processes left alive after a timeout, a time limit and a stop (Ctrl-C) by tests
      that start children in their process group and daemons outside it (setsid, double fork).
  bench/safety.py modes
      The modes of the scratch directory, run directory and candidate under umasks 000/022/077.

The binary is $WHITTLE, else target/release/whittle of this repository (build it first).
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHITTLE = os.environ.get("WHITTLE", os.path.join(ROOT, "target", "release", "whittle"))


def script(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def pids(path):
    try:
        with open(path) as f:
            return [int(line) for line in f if line.strip().isdigit()]
    except OSError:
        return []


def kill_all(found):
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def sigterm(args):
    rng = random.Random(args.seed)
    hangs = leaked_scratch = leaked_locks = survivors = 0
    codes = {}
    with tempfile.TemporaryDirectory() as work:
        tmp = os.path.join(work, "tmp")
        os.mkdir(tmp)
        inp = os.path.join(work, "in.txt")
        with open(inp, "w") as f:
            f.writelines(f"line {i}\n" for i in range(16))
        pid_file = os.path.join(work, "pids")
        test = script(os.path.join(work, "hang.sh"), f"echo $$ >> {pid_file}\nexec sleep 600")
        env = dict(os.environ, TMPDIR=tmp)
        for trial in range(args.trials):
            out = os.path.join(work, "out.txt")
            child = subprocess.Popen(
                [WHITTLE, "reduce", inp, "--no-tui", "-j", "2", "-o", out, "--", test],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=work)
            time.sleep(rng.uniform(0, args.max_delay_ms / 1000))
            child.send_signal(signal.SIGTERM)
            try:
                code = child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                hangs += 1
                child.kill()
                code = child.wait()
                code = "hang"
            codes[code] = codes.get(code, 0) + 1
            left = os.listdir(tmp)
            leaked_scratch += len(left)
            for name in left:
                subprocess.run(["rm", "-rf", os.path.join(tmp, name)])
            if os.path.exists(os.path.join(work, ".out.txt.whittle.lock")):
                leaked_locks += 1
                os.remove(os.path.join(work, ".out.txt.whittle.lock"))
            if os.path.exists(out):
                os.remove(out)
            time.sleep(0.02)
            living = [pid for pid in pids(pid_file) if alive(pid)]
            survivors += len(living)
            kill_all(living)
            open(pid_file, "w").close()
            if (trial + 1) % 100 == 0:
                print(f"  {trial + 1} trials: {hangs} hangs", file=sys.stderr)
    print(f"binary: {WHITTLE}")
    print(f"trials: {args.trials} (SIGTERM after 0-{args.max_delay_ms} ms)")
    print(f"hangs: {hangs}")
    print(f"exit statuses: {dict(sorted(codes.items(), key=str))} (negative: killed by signal)")
    print(f"scratch directories left: {leaked_scratch}")
    print(f"lock files left: {leaked_locks}")
    print(f"test processes alive after whittle ended: {survivors}")


def survivors(args):
    with tempfile.TemporaryDirectory() as work:
        tmp = os.path.join(work, "tmp")
        os.mkdir(tmp)
        inp = os.path.join(work, "in.txt")
        with open(inp, "w") as f:
            f.writelines(f"line {i}\n" for i in range(12))
        pid_file = os.path.join(work, "pids")
        # A child in the group, a daemon in a new session, a double-forked daemon; then the test
        # hangs (timeout, limit) or runs a while (stop).
        body = (f"sleep 600 & echo $! >> {pid_file}\n"
                f"setsid sleep 600 >/dev/null 2>&1 </dev/null & echo $! >> {pid_file}\n"
                f"(setsid sh -c 'echo $$ >> {pid_file}; exec sleep 600' >/dev/null 2>&1 </dev/null &)\n"
                f"echo $$ >> {pid_file}\n")
        hang = script(os.path.join(work, "hang.sh"), body + f"[ -e {work}/seen ] && exec sleep 600\n"
                      f"touch {work}/seen\nexit 0")
        slow = script(os.path.join(work, "slow.sh"), body + "sleep 0.3\ngrep -q 'line 7$' \"$1\"")
        env = dict(os.environ, TMPDIR=tmp)
        scenarios = [
            ("timeout", ["--timeout", "0.5", "--limit-tests", "6"], hang, None),
            ("time limit", ["--limit-time", "2"], hang, None),
            ("stop (SIGINT)", [], slow, 1.5),
        ]
        print(f"binary: {WHITTLE}")
        for name, extra, test, stop_after in scenarios:
            open(pid_file, "w").close()
            for leftover in ("seen", "out.txt"):
                if os.path.exists(os.path.join(work, leftover)):
                    os.remove(os.path.join(work, leftover))
            child = subprocess.Popen(
                [WHITTLE, "reduce", inp, "--no-tui", "-j", "2", "-o", os.path.join(work, "out.txt"),
                 *extra, "--", test],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=work)
            if stop_after:
                time.sleep(stop_after)
                child.send_signal(signal.SIGINT)
            try:
                code = child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                code = "hang"
            time.sleep(0.2)
            started = pids(pid_file)
            living = [pid for pid in started if alive(pid)]
            print(f"{name}: exit {code}, {len(started)} processes started by tests, "
                  f"{len(living)} alive after whittle ended, scratch left: {len(os.listdir(tmp))}")
            kill_all(living)
            for left in os.listdir(tmp):
                subprocess.run(["rm", "-rf", os.path.join(tmp, left)])


def modes(args):
    with tempfile.TemporaryDirectory() as work:
        tmp = os.path.join(work, "tmp")
        os.mkdir(tmp)
        inp = os.path.join(work, "in.txt")
        with open(inp, "w") as f:
            f.write("a\nb\n")
        seen = os.path.join(work, "modes")
        test = script(os.path.join(work, "modes.sh"),
                      f"echo \"$(stat -c %a ..) $(stat -c %a .) $(stat -c %a \"$1\")\" >> {seen}\nexit 1")
        print(f"binary: {WHITTLE}")
        for umask in ("000", "022", "077"):
            if os.path.exists(seen):
                os.remove(seen)
            subprocess.run(["sh", "-c", f"umask {umask}; exec \"$0\" reduce {inp} --no-tui -- {test}",
                            WHITTLE], env=dict(os.environ, TMPDIR=tmp), cwd=work,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(seen) as f:
                root, run, candidate = f.readline().split()
            print(f"umask {umask}: scratch directory {root}, run directory {run}, candidate {candidate}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    trials = sub.add_parser("sigterm")
    trials.add_argument("--trials", type=int, default=1000)
    trials.add_argument("--max-delay-ms", type=float, default=40)
    trials.add_argument("--seed", type=int, default=1)
    sub.add_parser("survivors")
    sub.add_parser("modes")
    args = parser.parse_args()
    {"sigterm": sigterm, "survivors": survivors, "modes": modes}[args.command](args)


if __name__ == "__main__":
    main()
