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
  bench/safety.py hostile [--verbose]
      Tries what a careful or hostile user does (special files, long lines, records onto the
      test, closed and full output streams, cut traces, tests that cannot start, bad options)
      and counts the cases that end with a clear error, lose data (a file of the user's changed
      that whittle must not write), hang (past their limit), or panic.

The binary is $WHITTLE, else target/release/whittle of this repository (build it first).
"""

import argparse
import os
import random
import shutil
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


def sha(path):
    import hashlib
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def regular_files(work):
    found = {}
    for name in os.listdir(work):
        path = os.path.join(work, name)
        if os.path.isfile(path) and not os.path.islink(path):
            found[name] = sha(path)
    return found


def read(work, name):
    try:
        with open(os.path.join(work, name), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def hostile_checks(work):
    """What must hold after some cases (a wrong result counts as data lost): name -> check,
    which returns what is wrong, if anything."""
    def link_kept():
        if not os.path.islink(os.path.join(work, "link.txt")):
            return "the link was replaced by a file"
        return None if "line 17" in read(work, "target.txt") else "the link's target holds no result"

    def busy_kept():
        return None if "line 17" in read(work, "busy.txt") else "the other run's output is not its result"

    def five_tests():
        import json
        try:
            with open(os.path.join(work, "o14.json")) as f:
                tests = json.load(f)["tests"]
        except (OSError, ValueError, KeyError):
            return "no statistics"
        return None if tests == 5 else f"{tests} tests for --limit-tests 5"

    return {
        "-o through a symbolic link": link_kept,
        "--trace onto another run's output": busy_kept,
        "--limit-tests 5 -j 2": five_tests,
    }


def hostile_cases(work):
    """(name, shell command run in `work`, seconds it may take, files it may write)."""
    w = f"'{WHITTLE}'"
    reduce = f"{w} reduce in.txt --no-tui"
    long_name = "o" * 240 + ".txt"
    return [
        ("FIFO as the input", f"{w} reduce fifo --no-tui -o o1.txt -- ./test.sh", 5, []),
        ("FIFO as --trace", f"{reduce} --trace fifo -- ./test.sh", 5, []),
        ("FIFO as --stats-json", f"{reduce} --stats-json fifo -- ./test.sh", 5, []),
        ("FIFO as -o", f"{reduce} -o fifo -- ./test.sh", 5, []),
        ("FIFO to replay", f"{w} replay fifo --no-tui", 5, []),
        ("FIFO to tree", f"{w} tree fifo", 5, []),
        ("a directory as the input", f"{w} reduce . --no-tui -- ./test.sh", 5, []),
        ("a missing input", f"{w} reduce missing.txt --no-tui -- ./test.sh", 5, []),
        ("/dev/zero as the input", f"{w} reduce /dev/zero --no-tui -o o2.txt -- ./test.sh", 5, []),
        ("--trace onto the test script", f"{reduce} --trace test.sh -- ./test.sh", 5, []),
        ("--stats-json onto the test script", f"{reduce} --stats-json test.sh -- ./test.sh", 5, []),
        ("--trace onto a file the test reads", f"{reduce} --trace data.txt -o o3.txt -- ./reads.sh data.txt", 5, []),
        ("-o onto the test script, forced", f"{reduce} -o test.sh --force -- ./test.sh", 5, []),
        ("--trace onto a user's file", f"{reduce} --trace notes.txt -o o4.txt -- ./test.sh", 5, []),
        ("--stats-json onto a user's file", f"{reduce} --stats-json notes.txt -o o5.txt -- ./test.sh", 5, []),
        ("--trace onto another run's output",
         f"({w} reduce in.txt --no-tui -o busy.txt -- ./slow.sh >/dev/null 2>&1 & sleep 1; "
         f"{reduce} --trace busy.txt -o o6.txt -- ./test.sh; s=$?; kill %1; wait; exit $s)", 30,
         ["busy.txt"]),
        ("reduce | head -1", f"{reduce} -o o7.txt -- ./test.sh | head -1", 20, ["o7.txt"]),
        ("reduce >/dev/full", f"{reduce} -o o8.txt -- ./test.sh >/dev/full", 20, ["o8.txt"]),
        ("reduce 2>/dev/full", f"{reduce} -o o9.txt -- ./test.sh 2>/dev/full", 20, ["o9.txt"]),
        ("languages | head -c10", f"{w} languages | head -c10", 5, []),
        ("algorithms | head -c10", f"{w} algorithms | head -c10", 5, []),
        ("demo | head -c10", f"{w} demo --no-tui | head -c10", 10, []),
        ("replay | head", f"{w} replay trace.jsonl --no-tui | head -2", 10, []),
        ("replay of a cut trace", f"{w} replay cut.jsonl --no-tui", 10, []),
        ("replay of a file that is no trace", f"{w} replay notes.txt --no-tui", 5, []),
        ("a test that is not executable", f"{reduce} -o o10.txt -- ./noexec.sh", 10, []),
        ("a test named without ./", f"{reduce} -o o11.txt -- test.sh", 10, []),
        ("a directory as the test", f"{reduce} -o o12.txt -- ./", 10, []),
        ("a test with a bad #! line", f"{reduce} -o o13.txt -- ./badshebang.sh", 10, []),
        ("an unknown algorithm", f"{reduce} -a hdd++ddmin -- ./test.sh", 5, []),
        ("a trailing + in the algorithm", f"{reduce} -a ddmin+ -- ./test.sh", 5, []),
        ("an empty schedule", f"{reduce} -a '()*' -- ./test.sh", 5, []),
        ("an unknown theme without the UI", f"{reduce} --theme foo -- ./test.sh", 5, []),
        ("-o through a symbolic link", f"{reduce} -o link.txt -- ./test.sh", 20, ["target.txt", "link.txt"]),
        ("an output name of 240 characters", f"{reduce} -o {long_name} -- ./test.sh", 20, [long_name]),
        ("--limit-tests 5 -j 2", f"{reduce} -o o14.txt --stats-json o14.json --limit-tests 5 -j 2 -- ./test.sh", 20,
         ["o14.txt", "o14.json"]),
        ("a 4 KB file of NULs", f"{w} reduce nul.bin --no-tui -o o15.bin --limit-time 20 -a tokens -- ./anything.sh", 25, ["o15.bin"]),
        ("one line of 400 KB, --limit-time 5", f"{w} reduce line.json --no-tui -o o16.json --limit-time 5 -- ./line.sh", 7, ["o16.json"]),
        ("one line of 4 MB, --limit-time 5", f"{w} reduce big.json --no-tui -o o17.json --limit-time 5 -- ./line.sh", 7, ["o17.json"]),
        ("SIGINT during a 4 MB line",
         f"{w} reduce big.json --no-tui -o o18.json -- ./line.sh & sleep 2; kill -INT $!; wait $!", 5,
         ["o18.json"]),
        ("a test that accepts everything", f"{reduce} -o o19.txt -- true", 20, ["o19.txt"]),
        ("--jobs 0", f"{reduce} -j 0 -- ./test.sh", 5, []),
        ("--timeout -1", f"{reduce} --timeout -1 -- ./test.sh", 5, []),
        ("--timeout nan", f"{reduce} --timeout nan -- ./test.sh", 5, []),
        ("an empty input", f"{w} reduce empty.txt --no-tui -o o20.txt -- ./test.sh", 10, []),
    ]


def hostile_setup(work):
    with open(os.path.join(work, "in.txt"), "w") as f:
        f.writelines(f"line {i}\n" for i in range(40))
    script(os.path.join(work, "test.sh"), "grep -q 'line 17$' \"$1\"")
    script(os.path.join(work, "slow.sh"), "sleep 0.3\ngrep -q 'line 17$' \"$1\"")
    script(os.path.join(work, "reads.sh"), "test -f \"$1\"\ngrep -q 'line 17$' \"$2\"")
    script(os.path.join(work, "anything.sh"), "test -s \"$1\"")
    script(os.path.join(work, "line.sh"), "grep -q '\"k17\"' \"$1\"")
    with open(os.path.join(work, "noexec.sh"), "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    with open(os.path.join(work, "badshebang.sh"), "w") as f:
        f.write("#!/no/such/interpreter\nexit 0\n")
    os.chmod(os.path.join(work, "badshebang.sh"), 0o755)
    for name, content in [("notes.txt", "my notes\n"), ("data.txt", "data\n")]:
        with open(os.path.join(work, name), "w") as f:
            f.write(content)
    # A link to a file that does not exist yet: the result must go there, the link stay.
    os.symlink("target.txt", os.path.join(work, "link.txt"))
    open(os.path.join(work, "empty.txt"), "w").close()
    with open(os.path.join(work, "nul.bin"), "wb") as f:
        f.write(b"\0" * 4096)
    rng = random.Random(7)

    def one_line(path, size):
        items, total = [], 0
        while total < size:
            item = '{"k%d":[%r,"abc",null]}' % (len(items), rng.random())
            items.append(item)
            total += len(item) + 1
        with open(path, "w") as f:
            f.write("[" + ",".join(items) + "]\n")
    one_line(os.path.join(work, "line.json"), 400_000)
    one_line(os.path.join(work, "big.json"), 4_000_000)
    os.mkfifo(os.path.join(work, "fifo"))
    trace = os.path.join(work, "trace.jsonl")
    subprocess.run([WHITTLE, "reduce", "in.txt", "--no-tui", "-o", "traced.txt", "--trace", trace,
                    "--", "./test.sh"], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(trace, "rb") as f:
        whole = f.read()
    with open(os.path.join(work, "cut.jsonl"), "wb") as f:
        f.write(whole[: len(whole) - 40])


def hostile(args):
    counts = dict(tried=0, ok=0, clear_error=0, unclear=0, data_lost=0, hangs=0, panics=0)
    with tempfile.TemporaryDirectory() as work:
        tmp = os.path.join(work, "tmp")
        os.mkdir(tmp)
        hostile_setup(work)
        pristine = os.path.join(tmp, "pristine")
        os.mkdir(pristine)
        for name in regular_files(work):
            shutil.copy2(os.path.join(work, name), pristine)
        env = dict(os.environ, TMPDIR=tmp, RUST_BACKTRACE="1")
        print(f"binary: {WHITTLE}")
        for name, command, limit, writes in hostile_cases(work):
            before = regular_files(work)
            started = time.monotonic()
            child = subprocess.Popen(["bash", "-c", command], cwd=work, env=env, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
            try:
                out, err = child.communicate(timeout=limit + 1)
                hung = False
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                out, err = child.communicate()
                hung = True
            took = time.monotonic() - started
            code = child.returncode
            after = regular_files(work)
            allowed = set(writes) | {n for n in after if n.startswith("o") and n[1:].split(".")[0].isdigit()}
            changed = [n for n, h in before.items() if n not in allowed and after.get(n) != h]
            panicked = "panicked" in err or code == 101
            check = hostile_checks(work).get(name)
            wrong = check() if check and not hung else None
            wrong_note = [wrong] if wrong else []
            counts["tried"] += 1
            if hung:
                verdict = "HANG"
                counts["hangs"] += 1
            elif panicked:
                verdict = "PANIC"
                counts["panics"] += 1
            elif changed or wrong_note:
                verdict = "DATA LOST: " + ", ".join(changed + wrong_note)
                counts["data_lost"] += 1
            elif code in (0, 130, 141):
                verdict = "ok"
                counts["ok"] += 1
            elif "whittle" in err or "error:" in err:
                verdict = "clear error"
                counts["clear_error"] += 1
            else:
                verdict = "no message"
                counts["unclear"] += 1
            first = next((line for line in err.splitlines() if line.strip()), "")
            print(f"{name:<40} exit {code!s:>4} {took:5.1f} s  {verdict}")
            if args.verbose or verdict not in ("ok", "clear error"):
                print(f"    {first[:150]}")
            # What a case destroyed is put back, so that it does not spoil the next ones.
            for name in changed:
                shutil.copy2(os.path.join(pristine, name), work)
            # Leftovers of the case: outputs and locks are removed before the next one.
            for leftover in os.listdir(work):
                path = os.path.join(work, leftover)
                if leftover.endswith(".whittle.lock") or (leftover in allowed and leftover not in before):
                    if os.path.isfile(path) and not os.path.islink(path):
                        os.remove(path)
        print("tried {tried}: finished {ok}, clear error {clear_error}, no message {unclear}, "
              "data lost {data_lost}, hangs {hangs}, panics {panics}".format(**counts))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    trials = sub.add_parser("sigterm")
    trials.add_argument("--trials", type=int, default=1000)
    trials.add_argument("--max-delay-ms", type=float, default=40)
    trials.add_argument("--seed", type=int, default=1)
    sub.add_parser("survivors")
    sub.add_parser("modes")
    hostile_parser = sub.add_parser("hostile")
    hostile_parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    {"sigterm": sigterm, "survivors": survivors, "modes": modes, "hostile": hostile}[args.command](args)


if __name__ == "__main__":
    main()
