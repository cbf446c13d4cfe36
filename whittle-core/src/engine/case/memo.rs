//! The whole-set memo of verdicts, a file's candidates judged as whole sets, and the files as ddmin's domain.

use super::*;

/// Verdicts on whole sets of files, by the hash of their bundle: a file's candidate met again
/// with the other files as they were then is not tested again, across sessions and rounds.
#[derive(Default)]
pub struct CaseMemo {
    pub(super) verdicts: Mutex<HashMap<[u8; 32], Verdict>>,
}

impl CaseMemo {
    fn get(&self, bundle: &[u8]) -> Option<Verdict> {
        let verdicts = self.verdicts.lock().unwrap_or_else(PoisonError::into_inner);
        verdicts.get(&sha3_256(bundle)).cloned()
    }

    pub(super) fn put(&self, bundle: &[u8], verdict: &Verdict) {
        if matches!(verdict.outcome, Outcome::NotInteresting) {
            let mut verdicts = self.verdicts.lock().unwrap_or_else(PoisonError::into_inner);
            verdicts.insert(
                sha3_256(bundle),
                Verdict {
                    output_tail: None,
                    duration: Duration::ZERO,
                    ..verdict.clone()
                },
            );
        }
    }
}

/// The oracle a file's session judges its candidates with: the candidate in place of file
/// `index`, the other files as they are, judged as one bundle.
pub(super) struct FileInCase {
    pub(super) inner: Arc<dyn Oracle>,
    pub(super) files: Vec<CaseFile>,
    /// `None`: the candidates are bundles of the whole set already.
    pub(super) index: Option<usize>,
    pub(super) memo: Arc<CaseMemo>,
    pub(super) memo_hits: AtomicU64,
}

impl FileInCase {
    pub(super) fn bundle_with(&self, candidate: &[u8]) -> Vec<u8> {
        let Some(index) = self.index else {
            return candidate.to_vec();
        };
        let mut out = bundle::empty();
        for (i, file) in self.files.iter().enumerate() {
            let content = if i == index { candidate } else { &file.content };
            bundle::push_file(&mut out, &file.path, file.mode, content);
        }
        out
    }
}

impl Oracle for FileInCase {
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        let whole = self.bundle_with(candidate);
        if let Some(verdict) = self.memo.get(&whole) {
            self.memo_hits.fetch_add(1, Ordering::Relaxed);
            return Verdict {
                remembered: true,
                timeout_reruns: 0,
                ..verdict
            };
        }
        let verdict = self.inner.judge(&whole, cancel);
        self.memo.put(&whole, &verdict);
        verdict
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn timeout(&self) -> Option<Duration> {
        self.inner.timeout()
    }

    fn fit_timeout(&self, check: Duration) -> Option<crate::exec::oracle::TimeoutFit> {
        self.inner.fit_timeout(check)
    }

    fn take_warnings(&self) -> Vec<String> {
        self.inner.take_warnings()
    }

    fn max_jobs(&self) -> usize {
        self.inner.max_jobs()
    }

    fn found_flaky(&self) -> bool {
        self.inner.found_flaky()
    }

    fn idle_work(&self) -> Option<crate::exec::oracle::IdleWork> {
        self.inner.idle_work()
    }
}

/// The units of the files phase: whole files, rendered as the bundle of those kept (and of the
/// files that always stay, in their places).
pub(super) struct FilesDomain<'a> {
    pub(super) files: &'a [CaseFile],
    /// Files that stay in every candidate (pinned ones): they are no units.
    pub(super) kept: &'a [bool],
}

impl Domain for FilesDomain<'_> {
    fn render(&self, parts: &[&[UnitId]], out: &mut Vec<u8>) {
        out.extend_from_slice(&bundle::empty());
        let mut chosen = vec![false; self.files.len()];
        for &unit in parts.iter().flat_map(|part| part.iter()) {
            chosen[unit as usize] = true;
        }
        for (index, file) in self.files.iter().enumerate() {
            if chosen[index] || self.kept[index] {
                bundle::push_file(out, &file.path, file.mode, &file.content);
            }
        }
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
