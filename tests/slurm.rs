//! The Slurm executor and `whittle batch --executor slurm` against a real Slurm: the one-machine
//! cluster of `scripts/slurm-local.sh` (started here when none runs and this is root). Ignored
//! by default; CI runs them with `--ignored` where it can start Slurm.
//!
//! Every test checks what Slurm itself says: `squeue --steps` lists no step (and `squeue` no
//! job) of the run once whittle has ended, however it ended.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use common::batch::{batch_args, batch_inputs, check_batch_summary};
use common::safety::{
    Work, all_ended, exited, pid_alive, pids_in, run_within, signal, text, wait_until,
};

/// The input of the tests that hang or cancel steps: eight lines.
const EIGHT_LINES: &str = "a\nb\nc\nd\ne\nf\ng\nh\n";

/// ddmin as Slurm steps, two at once, with a test timeout far beyond any test's.
const DDMIN_AS_STEPS: [&str; 8] = [
    "-a",
    "ddmin",
    "-j",
    "2",
    "--executor",
    "slurm",
    "--timeout",
    "600",
];

/// The `SLURM_CONF` of a running Slurm: the environment's when `sinfo` answers with it, else
/// the one of `scripts/slurm-local.sh`, started when it is down.
fn slurm_conf() -> &'static Path {
    static CONF: OnceLock<PathBuf> = OnceLock::new();
    CONF.get_or_init(|| {
        if let Some(conf) = std::env::var_os("SLURM_CONF") {
            let conf = PathBuf::from(conf);
            if sinfo_answers(&conf) {
                return conf;
            }
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-local.sh");
        let env = Command::new(&script).arg("env").output().unwrap();
        let conf = PathBuf::from(
            text(&env.stdout)
                .trim()
                .strip_prefix("export SLURM_CONF=")
                .expect("slurm-local.sh env prints export SLURM_CONF=..."),
        );
        if !sinfo_answers(&conf) {
            let started = Command::new(&script).arg("start").output().unwrap();
            assert!(
                started.status.success(),
                "no Slurm runs and scripts/slurm-local.sh could not start one:\n{}",
                text(&started.stderr)
            );
        }
        assert!(sinfo_answers(&conf), "Slurm does not answer with {conf:?}");
        conf
    })
}

fn sinfo_answers(conf: &Path) -> bool {
    Command::new("sinfo")
        .args(["-h", "-o", "%T"])
        .env("SLURM_CONF", conf)
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| {
            let states = text(&out.stdout);
            out.status.success()
                && ["idle", "mixed", "alloc"]
                    .iter()
                    .any(|state| states.contains(state))
        })
}

/// A command of Slurm's client or whittle's with this Slurm and without any allocation the
/// tests themselves might run in.
fn with_slurm(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("SLURM") {
            command.env_remove(name);
        }
    }
    command.env("SLURM_CONF", slurm_conf())
}

/// An allocation (`salloc --no-shell`), cancelled when dropped.
struct Allocation {
    job: String,
    tasks: usize,
}

impl Allocation {
    fn new(tasks: usize) -> Allocation {
        let out = with_slurm(Command::new("salloc").args([
            "--no-shell",
            &format!("--ntasks={tasks}"),
            "--job-name=whittle-tests",
        ]))
        .output()
        .unwrap();
        let said = text(&out.stderr);
        let job = said
            .split_whitespace()
            .skip_while(|word| *word != "allocation")
            .nth(1)
            .unwrap_or_else(|| panic!("salloc gave no allocation: {said}"))
            .to_owned();
        Allocation { job, tasks }
    }

    /// Makes `command` run inside this allocation (as in an `salloc` shell).
    fn enter<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        command
            .env("SLURM_JOB_ID", &self.job)
            .env("SLURM_JOBID", &self.job)
            .env("SLURM_NTASKS", self.tasks.to_string())
    }

    /// Runs `command` inside this allocation to its end within `limit` and asserts that it
    /// succeeded.
    fn succeeds(&self, mut command: Command, limit: Duration) -> Output {
        self.enter(&mut command);
        succeeds(&mut command, limit)
    }

    /// Runs `command` inside this allocation to its end (within 300 s), however it ends.
    fn run(&self, mut command: Command) -> Output {
        self.enter(&mut command);
        run_within(&mut command, Duration::from_secs(300))
    }

    /// The steps Slurm knows in this allocation.
    fn steps(&self) -> Vec<String> {
        squeue(&["--steps", &format!("--jobs={}", self.job)])
    }

    /// Slurm knows no step of this allocation now.
    fn assert_no_step_left(&self) {
        assert!(self.steps().is_empty(), "{:?}", self.steps());
    }

    /// Slurm knows no step of this allocation within 10 s.
    fn assert_steps_end(&self) {
        assert!(
            wait_until(Duration::from_secs(10), || self.steps().is_empty()),
            "steps left: {:?}",
            self.steps()
        );
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        let _ = with_slurm(Command::new("scancel").arg(&self.job)).status();
    }
}

/// `squeue --noheader --format='%i %j' ARGS`, line by line.
fn squeue(args: &[&str]) -> Vec<String> {
    let out = with_slurm(
        Command::new("squeue")
            .args(["--noheader", "--format=%i %j"])
            .args(args),
    )
    .output()
    .unwrap();
    text(&out.stdout)
        .lines()
        .map(|line| line.trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

/// The steps and jobs of a whittle run Slurm still knows: named after its scratch directory,
/// which whittle names on stderr.
fn left_of_run(stderr: &str) -> Vec<String> {
    let name = stderr
        .lines()
        .find_map(|line| {
            line.strip_prefix("whittle: checking that a Slurm node sees the scratch directory ")
        })
        .and_then(|dir| Path::new(dir.trim()).file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .expect("whittle names its scratch directory");
    squeue(&["--steps"])
        .into_iter()
        .chain(squeue(&[]))
        .filter(|line| {
            line.split_whitespace()
                .nth(1)
                .is_some_and(|job| job.starts_with(&name))
        })
        .collect()
}

/// Slurm knows no step or job of the run that wrote `stderr`.
fn assert_nothing_left_of_run(stderr: &str) {
    assert!(left_of_run(stderr).is_empty(), "{:?}", left_of_run(stderr));
}

/// The test processes a test recorded in `pids` all end within 10 s.
fn assert_test_processes_end(pids: &Path) {
    assert!(
        all_ended(&pids_in(pids), Duration::from_secs(10)),
        "test processes left"
    );
}

/// `whittle reduce INPUT --no-tui OPTIONS -- TEST` in `work`, with this Slurm.
fn reduce(work: &Work, input: &str, options: &[&str], test: &str) -> Command {
    let mut command = work.whittle(&["reduce", input, "--no-tui"]);
    command.args(options).args(["--", test]);
    with_slurm(&mut command);
    command
}

/// The reduction of `input` in `work` with `options` into `output` on this machine (what a
/// Slurm run is compared with); it succeeds within `limit`.
fn reduce_locally(
    work: &Work,
    input: &str,
    output: &str,
    options: &[&str],
    test: &str,
    limit: Duration,
) {
    succeeds(
        &mut reduce(work, input, &[&["-o", output], options].concat(), test),
        limit,
    );
}

/// Runs `command` to its end within `limit` and asserts that it succeeded.
fn succeeds(command: &mut Command, limit: Duration) -> Output {
    let out = run_within(command, limit);
    assert_success(&out);
    out
}

fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "{:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

mod slurm {
    //! The tests, in a module so that a run can leave them out (`--skip slurm::`).

    use super::*;

    /// The same reduction on this machine and as steps of an allocation, both `stable` with two
    /// tests at once: byte for byte the same result, which for sumprod is also the papers' DDMIN*
    /// result. Every step ran on the node and none is left.
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn sumprod_through_slurm_steps_is_the_local_stable_result() {
        let work = Work::new();
        work.copy_example("sumprod-c");
        let common = ["--atoms", "line", "-j", "2", "--parallel", "stable"];
        reduce_locally(
            &work,
            "sumprod.c",
            "local.c",
            &common,
            "./oracle.sh",
            Duration::from_secs(600),
        );
        let allocation = Allocation::new(2);
        let slurm_options = [
            "-o",
            "slurm.c",
            "--executor",
            "slurm",
            "--stats-json",
            "slurm.json",
            "--trace",
            "trace.jsonl",
        ];
        let slurm = allocation.succeeds(
            reduce(
                &work,
                "sumprod.c",
                &[&slurm_options, &common[..]].concat(),
                "./oracle.sh",
            ),
            Duration::from_secs(900),
        );
        let stderr = text(&slurm.stderr);
        assert!(
            stderr.contains(&format!(
                "as Slurm job steps in allocation {}",
                allocation.job
            )),
            "{stderr}"
        );
        assert_eq!(
            work.read("slurm.c"),
            work.read("local.c"),
            "the Slurm run's result is the local one"
        );
        assert_eq!(work.read("slurm.c"), work.read("expected-ddmin-star.c"));
        let stats = work.json("slurm.json");
        assert_eq!(stats["lost"], 0);
        assert!(stats["tests"].as_u64().unwrap() > 20, "{stats}");
        assert_nothing_left_of_run(&stderr);
        allocation.assert_no_step_left();
    }

    /// Without an allocation every test is a job of its own: hoisting on hello.c gives the local
    /// result too.
    #[test]
    #[cfg_attr(
        feature = "lang-c",
        ignore = "needs a running Slurm (scripts/slurm-local.sh start)"
    )]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn hello_hoist_as_slurm_jobs_of_their_own_is_the_local_result() {
        let work = Work::new();
        work.copy_example("hello-hoist-c");
        let common = ["-a", "hoist+hddh", "-j", "2", "--parallel", "stable"];
        reduce_locally(
            &work,
            "hello.c",
            "local.c",
            &common,
            "./oracle.sh",
            Duration::from_secs(600),
        );
        let slurm = succeeds(
            &mut reduce(
                &work,
                "hello.c",
                &[&["-o", "slurm.c", "--executor", "slurm"], &common[..]].concat(),
                "./oracle.sh",
            ),
            Duration::from_secs(900),
        );
        let stderr = text(&slurm.stderr);
        assert!(stderr.contains("as Slurm jobs of their own"), "{stderr}");
        let result = work.read("slurm.c");
        assert_eq!(result, work.read("local.c"));
        assert!(!text(&result).contains("if"), "{}", text(&result));
        assert_nothing_left_of_run(&stderr);
    }

    /// A benchmark task (WHITTLE_BENCH_DIR): a JSON input reduced by its default tree pipeline
    /// through steps equals the local stable run.
    #[test]
    #[cfg_attr(
        feature = "lang-json",
        ignore = "needs a running Slurm and WHITTLE_BENCH_DIR (the benchmark tasks)"
    )]
    #[cfg_attr(
        not(feature = "lang-json"),
        ignore = "needs the JSON grammar (cargo feature lang-json)"
    )]
    fn a_benchmark_task_through_slurm_steps_is_the_local_stable_result() {
        let bench = PathBuf::from(
            std::env::var_os("WHITTLE_BENCH_DIR")
                .expect("WHITTLE_BENCH_DIR names the folder of the benchmark tasks"),
        );
        let task = bench.join("json-yosys-bad-key");
        let work = Work::new();
        std::fs::copy(task.join("json8.json"), work.path("json8.json")).unwrap();
        let oracle = task.join("oracle.sh");
        let oracle = oracle.to_str().unwrap();
        let common = ["-j", "2", "--parallel", "stable"];
        reduce_locally(
            &work,
            "json8.json",
            "local.json",
            &common,
            oracle,
            Duration::from_secs(900),
        );
        let allocation = Allocation::new(2);
        allocation.succeeds(
            reduce(
                &work,
                "json8.json",
                &[&["-o", "slurm.json", "--executor", "slurm"], &common[..]].concat(),
                oracle,
            ),
            Duration::from_secs(900),
        );
        assert_eq!(work.read("slurm.json"), work.read("local.json"));
        allocation.assert_no_step_left();
    }

    /// A test that hangs on every candidate smaller than the input but the empty one, and records
    /// its process ids.
    fn hanging_test(work: &Work) -> PathBuf {
        let pids = work.path("pids");
        work.file("in.txt", EIGHT_LINES);
        work.script(
        "hang.sh",
        &format!(
            "echo $$ >> {pids}\n[ -s \"$1\" ] || exit 1\n[ \"$(wc -l < \"$1\")\" -ge 8 ] && exit 0\nsleep 3000 & echo $! >> {pids}\nwait",
            pids = pids.display()
        ),
    );
        pids
    }

    /// Ctrl-C while steps run: whittle exits 130 at once, and neither a step nor a test process
    /// is left.
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn ctrl_c_leaves_no_step_running() {
        let work = Work::new();
        let pids = hanging_test(&work);
        let allocation = Allocation::new(2);
        let mut command = reduce(&work, "in.txt", &DDMIN_AS_STEPS, "./hang.sh");
        allocation.enter(&mut command);
        let mut child = common::safety::spawn_piped(&mut command);
        // Both tests of the first window hang as steps (after the two checks, each test writes
        // its own and its sleep's process id).
        assert!(
            wait_until(Duration::from_secs(60), || pids_in(&pids).len() >= 6),
            "the steps did not start: {:?}",
            allocation.steps()
        );
        assert_eq!(allocation.steps().len(), 2, "{:?}", allocation.steps());
        signal(child.id() as i32, nix::sys::signal::Signal::SIGINT);
        let status = common::safety::wait_within(&mut child, Duration::from_secs(30))
            .expect("whittle ends soon after Ctrl-C");
        let out = child.wait_with_output().unwrap();
        assert_eq!(status.code(), Some(130), "{}", text(&out.stderr));
        allocation.assert_steps_end();
        assert_test_processes_end(&pids);
        assert_eq!(work.read("in.txt"), EIGHT_LINES.as_bytes());
    }

    /// `first` mode: the tests that lose a window are cancelled at once, steps and processes,
    /// while the reduction goes on (not only when it ends).
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn first_mode_cancels_the_losing_steps_while_the_run_goes_on() {
        let work = Work::new();
        work.file("in.txt", EIGHT_LINES);
        let hung = work.path("hung");
        // Candidates with `a` are interesting after a second; the others hang (but the empty one).
        work.script(
        "t.sh",
        &format!(
            "[ -s \"$1\" ] || exit 1\nif grep -q a \"$1\"; then sleep 1; exit 0; fi\nsleep 3000 & echo $! >> {}\nwait",
            hung.display()
        ),
    );
        let allocation = Allocation::new(2);
        let mut command = reduce(
            &work,
            "in.txt",
            &[
                "-a",
                "ddmin",
                "--atoms",
                "line",
                "-j",
                "2",
                "--parallel",
                "first",
                "--executor",
                "slurm",
                "--timeout",
                "600",
            ],
            "./t.sh",
        );
        allocation.enter(&mut command);
        let mut child = common::safety::spawn_piped(&mut command);
        let mut seen: std::collections::HashMap<i32, std::time::Instant> = Default::default();
        let mut cancelled_while_running = 0;
        while child.try_wait().unwrap().is_none() {
            for pid in pids_in(&hung) {
                let first = *seen.entry(pid).or_insert_with(std::time::Instant::now);
                if pid_alive(pid) {
                    assert!(
                        first.elapsed() < Duration::from_secs(8),
                        "a losing test still runs 8 s after it started: {:?}",
                        allocation.steps()
                    );
                } else if first.elapsed() < Duration::from_secs(8) {
                    cancelled_while_running += 1;
                    seen.insert(pid, first - Duration::from_secs(3600));
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        assert_success(&out);
        assert_eq!(work.read("in.whittled.txt"), b"a\n");
        assert!(
            cancelled_while_running >= 2,
            "{cancelled_while_running} losing tests seen cancelled"
        );
        allocation.assert_no_step_left();
    }

    /// A test that reads the candidate on stdin only, under `--memory-limit`, as steps of an
    /// allocation: the node's test gets the bytes on stdin and the address-space cap (`ulimit
    /// -v` in KiB), and the result is the one line it wants.
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn a_stdin_test_under_a_memory_limit_runs_as_steps() {
        let work = Work::new();
        work.file("in.txt", "a\nb\nbug\nc\nd\n");
        // `$1` (the path) is not read: only stdin. Exit 3 when the cap is missing.
        work.script(
            "stdin.sh",
            "[ \"$(ulimit -v)\" = 524288 ] || exit 3\nexec grep -qx bug\n",
        );
        let allocation = Allocation::new(2);
        let out = allocation.succeeds(
            reduce(
                &work,
                "in.txt",
                &[
                    &DDMIN_AS_STEPS[..],
                    &["--memory-limit", "512", "-o", "out.txt"],
                ]
                .concat(),
                "./stdin.sh",
            ),
            Duration::from_secs(300),
        );
        assert_eq!(work.read_string("out.txt"), "bug");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("as Slurm job steps"), "{stderr}");
        // Only stdin: the same test with its bytes kept from it fails the input check.
        let out = allocation.run(reduce(
            &work,
            "in.txt",
            &[
                &DDMIN_AS_STEPS[..],
                &[
                    "--memory-limit",
                    "512",
                    "--input-type",
                    "arg",
                    "-o",
                    "arg.txt",
                ],
            ]
            .concat(),
            "./stdin.sh",
        ));
        assert!(!out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("not interesting"),
            "{}",
            text(&out.stderr)
        );
        allocation.assert_no_step_left();
    }

    /// The time limit while every step hangs (a --timeout far beyond it): whittle stops at the
    /// limit and no step is left; the same with jobs of their own.
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn the_time_limit_leaves_no_step_running() {
        let work = Work::new();
        let pids = hanging_test(&work);
        let allocation = Allocation::new(2);
        let out = allocation.succeeds(
            reduce(
                &work,
                "in.txt",
                &[&DDMIN_AS_STEPS[..], &["--limit-time", "5"]].concat(),
                "./hang.sh",
            ),
            Duration::from_secs(60),
        );
        assert!(
            text(&out.stdout).contains("time limit"),
            "{}",
            text(&out.stdout)
        );
        allocation.assert_steps_end();
        drop(allocation);
        // Jobs of their own.
        let out = succeeds(
            &mut reduce(
                &work,
                "in.txt",
                &[&DDMIN_AS_STEPS[..], &["--limit-time", "5", "-o", "own.txt"]].concat(),
                "./hang.sh",
            ),
            Duration::from_secs(60),
        );
        let stderr = text(&out.stderr);
        assert!(
            wait_until(Duration::from_secs(10), || left_of_run(&stderr).is_empty()),
            "jobs left: {:?}",
            left_of_run(&stderr)
        );
        assert_test_processes_end(&pids);
    }

    /// A test that outlives --timeout is killed on the node: timed out (unresolved), counted as
    /// a timeout, not lost, and no step is left.
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn a_test_timeout_kills_the_test_on_the_node_and_leaves_no_step() {
        let work = Work::new();
        let pids = hanging_test(&work);
        let allocation = Allocation::new(2);
        allocation.succeeds(
            reduce(
                &work,
                "in.txt",
                &[
                    "-a",
                    "ddmin",
                    "--atoms",
                    "line",
                    "-j",
                    "2",
                    "--executor",
                    "slurm",
                    "--timeout",
                    "1",
                    "--stats-json",
                    "stats.json",
                ],
                "./hang.sh",
            ),
            Duration::from_secs(300),
        );
        let stats = work.json("stats.json");
        assert!(stats["timeouts"].as_u64().unwrap() >= 2, "{stats}");
        assert_eq!(stats["lost"], 0, "{stats}");
        assert_eq!(stats["timeouts"], stats["unresolved"], "{stats}");
        // Nothing smaller ever passes: the result is the input.
        assert_eq!(work.read("in.whittled.txt"), EIGHT_LINES.as_bytes());
        allocation.assert_no_step_left();
        assert_test_processes_end(&pids);
    }

    /// A step that Slurm cancels (here the test cancels its own step, the first time it sees a
    /// candidate) is lost: unresolved, not cached, tested again when it comes up again; the
    /// result is still the local one.
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn a_step_slurm_cancels_is_lost_and_tested_again() {
        let work = Work::new();
        work.file("in.txt", EIGHT_LINES);
        let marks = work.path("marks");
        std::fs::create_dir(&marks).unwrap();
        work.script(
            "t.sh",
            &format!(
                "m={marks}/$(cksum < \"$1\" | cut -d' ' -f1)\n\
             if [ -n \"$SLURM_STEP_ID\" ] && [ ! -e \"$m\" ]; then\n\
               touch \"$m\"; scancel \"$SLURM_JOB_ID.$SLURM_STEP_ID\"; sleep 60\n\
             fi\n\
             grep -q a \"$1\" && grep -q f \"$1\"",
                marks = marks.display()
            ),
        );
        // A timeout far beyond the test's: the cancelled step is lost, never timed out.
        let common = ["-a", "ddmin", "-j", "1", "--timeout", "600"];
        reduce_locally(
            &work,
            "in.txt",
            "local.txt",
            &common,
            "./t.sh",
            Duration::from_secs(120),
        );
        let allocation = Allocation::new(1);
        allocation.succeeds(
            reduce(
                &work,
                "in.txt",
                &[
                    &common[..],
                    &[
                        "-o",
                        "slurm.txt",
                        "--executor",
                        "slurm",
                        "--stats-json",
                        "stats.json",
                    ],
                ]
                .concat(),
                "./t.sh",
            ),
            Duration::from_secs(600),
        );
        assert_eq!(work.read("slurm.txt"), work.read("local.txt"));
        assert_eq!(work.read("slurm.txt"), b"af");
        let stats = work.json("stats.json");
        let lost = stats["lost"].as_u64().unwrap();
        assert!(lost >= 3, "{stats}");
        // The first run of every candidate was lost, and only the first: a lost outcome is never
        // taken from the cache, and the candidates that decided the result ran again.
        let distinct = std::fs::read_dir(&marks).unwrap().count() as u64;
        assert_eq!(lost, distinct, "{stats}");
        assert_eq!(stats["unresolved"], stats["lost"], "{stats}");
        allocation.assert_no_step_left();
    }

    /// A scratch directory the nodes do not see is refused before the first test, with the
    /// reason. The "node" here is a namespace in which the directory is hidden under an empty
    /// file system (an `srun` stand-in through WHITTLE_SRUN; needs root for the mount).
    #[test]
    #[ignore = "needs root and unshare (mount namespaces), as the Slurm tests"]
    fn a_scratch_directory_the_nodes_do_not_see_is_refused() {
        let work = Work::new();
        work.file("in.txt", "a\n");
        work.script("t.sh", "exit 0");
        let scratch = work.path("scratch");
        std::fs::create_dir(&scratch).unwrap();
        // Drops srun's options, then runs the command where the scratch directory is empty.
        let fake = work.script(
            "fake-srun",
            &format!(
                "while [ \"${{1#-}}\" != \"$1\" ]; do shift; done\n\
             exec unshare --mount sh -c 'mount -t tmpfs none \"$0\" && exec \"$@\"' {} \"$@\"",
                scratch.display()
            ),
        );
        let out = run_within(
            work.whittle(&[
                "reduce",
                "in.txt",
                "--no-tui",
                "--executor",
                "slurm",
                "--scratch-dir",
                scratch.to_str().unwrap(),
                "--",
                "./t.sh",
            ])
            .env("WHITTLE_SRUN", &fake),
            Duration::from_secs(60),
        );
        exited(&out, 2);
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("is not shared with the Slurm nodes"),
            "{stderr}"
        );
        assert!(!work.path("in.whittled.txt").exists());
    }

    /// `whittle batch --executor slurm` over 20 inputs, 5 of them not interesting: one array
    /// task each, and the summary says exactly what happened to each.
    #[test]
    #[ignore = "needs a running Slurm (scripts/slurm-local.sh start)"]
    fn a_batch_of_twenty_as_an_array_job_gives_the_right_summary() {
        let work = Work::new();
        let inputs = batch_inputs(&work);
        let out = run_within(
            with_slurm(&mut work.whittle(&batch_args(&["--executor", "slurm"], "./needle.sh"))),
            Duration::from_secs(900),
        );
        // Some inputs are not interesting: exit 1, after all of them ran.
        exited(&out, 1);
        check_batch_summary(&work, &inputs, "slurm");
        assert!(
            squeue(&[])
                .iter()
                .all(|line| !line.contains("whittle-batch")),
            "{:?}",
            squeue(&[])
        );
    }
}
