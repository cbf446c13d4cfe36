//! A tiny cooperative job scheduler with named queues and dependency tracking.
//!
//! Jobs are parsed from a manifest (`name: dep, dep`) that borrows from the input text, so the
//! scheduler keeps `&'a str` names instead of owned strings.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    Failed(i32),
    Skipped,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Done => write!(f, "done"),
            Outcome::Failed(code) => write!(f, "failed ({code})"),
            Outcome::Skipped => write!(f, "skipped"),
        }
    }
}

/// One job of the manifest: its name, the jobs it waits for, and its priority.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    pub name: &'a str,
    pub deps: Vec<&'a str>,
    pub priority: u8,
    pub attempts: u32,
}

impl<'a> Job<'a> {
    pub fn new(name: &'a str) -> Self {
        Job { name, deps: Vec::new(), priority: 5, attempts: 0 }
    }

    pub fn is_root(&self) -> bool {
        self.deps.is_empty()
    }
}

/// A parse error with the line it happened on.
#[derive(Debug)]
pub struct ManifestError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses `name[!priority]: dep, dep` lines; `#` starts a comment.
pub fn parse_manifest<'a>(text: &'a str) -> Result<Vec<Job<'a>>, ManifestError> {
    let mut jobs = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = match raw.find('#') {
            Some(cut) => &raw[..cut],
            None => raw,
        }
        .trim();
        if line.is_empty() {
            continue;
        }
        let (head, tail) = line.split_once(':').ok_or_else(|| ManifestError {
            line: index + 1,
            message: format!("expected `name: deps`, found {line:?}"),
        })?;
        let (name, priority) = match head.split_once('!') {
            Some((name, p)) => {
                let p: u8 = p.trim().parse().map_err(|_| ManifestError {
                    line: index + 1,
                    message: format!("bad priority {:?}", p.trim()),
                })?;
                (name.trim(), p)
            }
            None => (head.trim(), 5),
        };
        let mut job = Job::new(name);
        job.priority = priority;
        job.deps = tail.split(',').map(str::trim).filter(|d| !d.is_empty()).collect();
        jobs.push(job);
    }
    Ok(jobs)
}

/// The scheduler: jobs by name, a ready queue, and what happened to each job.
pub struct Scheduler<'a> {
    jobs: BTreeMap<&'a str, Job<'a>>,
    ready: VecDeque<&'a str>,
    waiting: HashMap<&'a str, usize>,
    outcomes: Vec<(&'a str, Outcome)>,
    log: Vec<String>,
}

impl<'a> Scheduler<'a> {
    pub fn new(jobs: Vec<Job<'a>>) -> Self {
        let mut scheduler = Scheduler {
            jobs: BTreeMap::new(),
            ready: VecDeque::new(),
            waiting: HashMap::new(),
            outcomes: Vec::new(),
            log: Vec::new(),
        };
        for job in jobs {
            scheduler.waiting.insert(job.name, job.deps.len());
            scheduler.jobs.insert(job.name, job);
        }
        scheduler
    }

    fn note(&mut self, line: String) {
        self.log.push(line);
    }

    /// Queues the jobs with no dependencies, highest priority first.
    pub fn seed(&mut self) {
        let mut roots: Vec<&Job<'a>> = self.jobs.values().filter(|job| job.is_root()).collect();
        roots.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.name.cmp(b.name)));
        for job in roots {
            self.ready.push_back(job.name);
        }
    }

    /// Marks `name` finished and releases the jobs that were waiting only for it.
    fn release(&mut self, name: &'a str) {
        let dependents: Vec<&'a str> = self
            .jobs
            .values()
            .filter(|job| job.deps.contains(&name))
            .map(|job| job.name)
            .collect();
        for dependent in dependents {
            if let Some(count) = self.waiting.get_mut(dependent) {
                *count -= 1;
                if *count == 0 {
                    self.ready.push_back(dependent);
                }
            }
        }
    }

    /// Retries a failed job once, with a lower priority; logs every attempt.
    fn retry(&mut self, name: &'a str) -> bool {
        let job = match self.jobs.get(name) {
            Some(job) => job,
            None => return false,
        };
        if job.attempts >= 2 {
            return false;
        }
        // log first, then requeue with a lower priority
        self.note(format!("retrying {} after {} attempts", job.name, job.attempts));
        let priority = job.priority.saturating_sub(1);
        let job = self.jobs.get_mut(name).unwrap();
        job.attempts += 1;
        job.priority = priority;
        self.ready.push_back(name);
        true
    }

    /// Runs every job with `run`, in dependency order.
    pub fn run<F>(&mut self, mut run: F) -> &[(&'a str, Outcome)]
    where
        F: FnMut(&Job<'a>) -> Result<(), i32>,
    {
        self.seed();
        while let Some(name) = self.ready.pop_front() {
            let result = match self.jobs.get(name) {
                Some(job) => run(job),
                None => continue,
            };
            match result {
                Ok(()) => {
                    self.outcomes.push((name, Outcome::Done));
                    self.release(name);
                }
                Err(code) => {
                    if !self.retry(name) {
                        self.outcomes.push((name, Outcome::Failed(code)));
                    }
                }
            }
        }
        for name in self.jobs.keys() {
            if !self.outcomes.iter().any(|(done, _)| done == name) {
                self.outcomes.push((name, Outcome::Skipped));
            }
        }
        &self.outcomes
    }

    pub fn log(&self) -> &[String] {
        &self.log
    }
}

/// Summarises outcomes as `done/failed/skipped` counts.
pub fn summary(outcomes: &[(&str, Outcome)]) -> (usize, usize, usize) {
    outcomes.iter().fold((0, 0, 0), |(d, f, s), (_, outcome)| match outcome {
        Outcome::Done => (d + 1, f, s),
        Outcome::Failed(_) => (d, f + 1, s),
        Outcome::Skipped => (d, f, s + 1),
    })
}

const MANIFEST: &str = "
# build graph of the firmware image
fetch!9:
configure!7: fetch
compile: configure
link: compile
test!3: link
package: link, test # only when tests pass
";

fn main() {
    let jobs = match parse_manifest(MANIFEST) {
        Ok(jobs) => jobs,
        Err(error) => {
            eprintln!("manifest: {error}");
            std::process::exit(2);
        }
    };
    let mut scheduler = Scheduler::new(jobs);
    let outcomes = scheduler.run(|job| if job.name == "test" { Err(1) } else { Ok(()) });
    for (name, outcome) in outcomes {
        println!("{name:>10}: {outcome}");
    }
    let (done, failed, skipped) = summary(outcomes);
    println!("{done} done, {failed} failed, {skipped} skipped");
    for line in scheduler.log() {
        println!("log: {line}");
    }
}
