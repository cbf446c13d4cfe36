//! How the commands steer a case: while it runs (`RunningCase`: pins of the file being
//! reduced, a skipped stage; the rest waits for the end) and once it is done (`DoneCase`: each
//! command applies to the file shown and the set is reduced again).

use super::*;

/// A case while it runs, as the commands steer it between the candidates of a stage: pins of
/// the file being reduced, a skipped stage; what changes a file or its pipeline waits for the
/// end of the run.
pub(super) struct RunningCase<'a> {
    pub(super) steering: &'a Steering,
    pub(super) tester: &'a Tester,
    /// The file being reduced (`None`: whole files are being removed).
    pub(super) file: Option<SteeredFile<'a>>,
    pub(super) stage: usize,
    pub(super) stage_name: &'a str,
    /// Where the file's pipeline resumes.
    pub(super) resume: usize,
}

/// Why a command that changes a file or its pipeline is refused while the case runs.
const AFTER_THE_RUN: &str =
    "with several files this waits for the end of the run (then it applies to the file shown)";

impl Steer for RunningCase<'_> {
    fn pin(&mut self, target: &PinTarget, on: bool) {
        let emit = |event| self.tester.emit(event);
        self.steering
            .pin(&emit, self.tester.best(), self.file.as_ref(), target, on);
    }

    fn switch(&mut self, _: &str) {
        self.tester.emit(rejected("switch", AFTER_THE_RUN));
    }

    fn skip_stage(&mut self) {
        // A schedule skipped its own stage and took the request.
        if !self.steering.shared.control.take_skip() {
            return;
        }
        if self.file.is_some() && self.resume == self.stage {
            self.tester.emit(Event::StageSkipped {
                stage: self.stage_name.into(),
                reason: "skipped by the user".into(),
            });
            self.resume += 1;
        } else {
            self.tester.emit(rejected(
                "skip",
                "whole files are being removed: there is no stage of a file to skip",
            ));
        }
    }

    fn propose(&mut self, _: &ManualEdit) {
        self.tester.emit(rejected("edit", AFTER_THE_RUN));
    }

    fn restart(&mut self, _: usize) {
        self.tester.emit(rejected("restart", AFTER_THE_RUN));
    }

    fn undo(&mut self) {
        self.tester.emit(rejected("undo", AFTER_THE_RUN));
    }

    fn show_file(&mut self, path: &Path) {
        // The panes follow the file being reduced; the file picked is shown at the end.
        *lock(&self.steering.selected) = Some(path.to_path_buf());
    }
}

/// A case that is done, as the commands steer it: each applies to the file the panes show
/// (its pins, its pipeline, an edit of it, a restart from its history), or takes back the last
/// edit or restart (the set before it); `again` says the set is to be reduced again.
pub(super) struct DoneCase<'a, 'run> {
    pub(super) steering: &'a Steering,
    pub(super) run: &'a mut CaseRun<'run>,
    pub(super) events: &'a Sender<Event>,
    pub(super) again: bool,
}

impl DoneCase<'_, '_> {
    fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }

    /// The file shown and its content in the set, or why a command cannot apply to one.
    fn shown(&self, command: &str) -> Option<(PathBuf, Vec<u8>)> {
        let shown = lock(&self.steering.shown).clone();
        let found = shown.and_then(|path| {
            let content = self.run.file(&path)?.to_vec();
            Some((path, content))
        });
        if let Some((path, _)) = &found {
            *lock(&self.steering.selected) = Some(path.clone());
        } else {
            self.emit(rejected(
                command,
                "no file of the set is shown (the panes list the whole set): this applies to one file",
            ));
        }
        found
    }

    /// The file shown becomes `content` (a restart, an undo): the panes follow, with a history
    /// entry for it.
    fn show(&self, content: &[u8], pins: &Mutex<crate::engine::pipeline::Pins>, before: &[u8]) {
        let ranges = {
            let mut pins = lock(pins);
            if !pins.is_empty() {
                *pins = pins.map_through(before, content);
            }
            pins.ranges().to_vec()
        };
        let steering = self.steering;
        let entry = HistoryEntry {
            index: 0,
            elapsed: steering.started.elapsed(),
            tests: steering.tests_before.load(Ordering::Relaxed)
                + lock(&steering.shared.stats).tests,
            size: content.len(),
            branch: Branch::Restart,
            stage: String::new(),
        };
        let entry = lock(&steering.shared.history).push(entry, content);
        steering.update(|s| {
            s.best = Arc::from(content);
            s.version += 1;
            s.pins = ranges;
            s.history.push(entry);
        });
    }
}

impl Steer for DoneCase<'_, '_> {
    fn pin(&mut self, target: &PinTarget, on: bool) {
        let Some((path, content)) = self.shown("pin") else {
            return;
        };
        let pins = self.run.pins(&path);
        let language = self.run.plan_of(&path).and_then(|plan| plan.language);
        let file = SteeredFile {
            language,
            pins: &pins,
        };
        let events = self.events;
        let emit = |event| {
            let _ = events.send(event);
        };
        if self.steering.pin(&emit, &content, Some(&file), target, on) {
            self.run.unsettle(&path);
            self.again = true;
        }
    }

    fn switch(&mut self, pipeline: &str) {
        let Some((path, _)) = self.shown("switch") else {
            return;
        };
        let switched = pipeline
            .parse()
            .and_then(|pipeline| self.run.switch_pipeline(&path, pipeline));
        match switched {
            Ok(plan) => {
                let name = plan.pipeline.to_string();
                self.steering.update(|s| {
                    s.pipeline = name.clone();
                    s.stage_count = crate::engine::pipeline::PipelineStages::stage_count(&plan);
                });
                self.emit(Event::Switched {
                    pipeline: name,
                    step: self.run.steps(),
                });
                self.again = true;
            }
            Err(reason) => self.emit(rejected("switch", &reason)),
        }
    }

    fn skip_stage(&mut self) {
        self.steering.shared.control.take_skip();
        self.emit(rejected(
            "skip",
            "the run is done: there is no stage to skip",
        ));
    }

    fn propose(&mut self, edit: &ManualEdit) {
        let Some((path, content)) = self.shown("propose") else {
            return;
        };
        let language = self.run.plan_of(&path).and_then(|plan| plan.language);
        let version = lock(&self.steering.shared.snapshot).version;
        let tree_of = |at: u64| {
            (at == version)
                .then(|| tree::parse(language?, content.clone(), Preprocess::default()).ok())
                .flatten()
        };
        let Some(edited) = manual::edited(&content, &tree_of, edit) else {
            self.emit(rejected(
                "propose",
                "the edit does not apply to the current best",
            ));
            return;
        };
        if !edited.keeps(&lock(&self.run.pins(&path)), &content) {
            self.emit(rejected("propose", "the edit would change pinned text"));
            return;
        }
        let before = self.run.files().to_vec();
        let candidate = edited.candidate(edit);
        self.steering.count_on(self.run.tests());
        let accepted = match self.run.propose(
            &path,
            candidate,
            edited.content.clone(),
            edited.removed.clone(),
        ) {
            Ok(accepted) => accepted,
            Err(error) => {
                self.emit(rejected("propose", &error.to_string()));
                return;
            }
        };
        if accepted {
            lock(&self.steering.undo).push((before, format!("the edit “{}”", edited.description)));
            self.again = true;
        }
        self.emit(Event::ManualEdit {
            description: edited.description,
            accepted,
            step: self.run.steps(),
        });
    }

    fn restart(&mut self, index: usize) {
        let Some((path, content)) = self.shown("restart") else {
            return;
        };
        let Some(text) = lock(&self.steering.shared.history).text(index) else {
            self.emit(rejected("restart", "there is no such history entry"));
            return;
        };
        let before = self.run.files().to_vec();
        let mut files = before.clone();
        if let Some(file) = files.iter_mut().find(|file| file.path == path) {
            file.content = text.clone();
        }
        self.run.set_files(files);
        let pins = self.run.pins(&path);
        self.show(&text, &pins, &content);
        lock(&self.steering.undo).push((before, format!("the restart from #{index}")));
        self.emit(Event::Restarted {
            from: index,
            size: text.len(),
        });
        self.again = true;
    }

    fn undo(&mut self) {
        let Some((set, what)) = lock(&self.steering.undo).pop() else {
            self.emit(rejected(
                "undo",
                "there is no manual edit or restart to undo",
            ));
            return;
        };
        let shown = lock(&self.steering.shown).clone();
        let before = shown
            .as_deref()
            .and_then(|path| self.run.file(path))
            .map(<[u8]>::to_vec);
        self.run.set_files(set);
        if let Some(path) = shown
            && let (Some(before), Some(now)) = (before, self.run.file(&path).map(<[u8]>::to_vec))
            && before != now
        {
            let pins = self.run.pins(&path);
            self.show(&now, &pins, &before);
        }
        let to = lock(&self.steering.shared.history).len().saturating_sub(1);
        self.emit(Event::Undone {
            what,
            to,
            size: bundle::content_size(self.run.files()),
        });
        self.again = true;
    }

    fn show_file(&mut self, path: &Path) {
        match self.steering.show_file(self.run, path) {
            Ok(()) => self.emit(Event::Notice {
                message: format!(
                    "{} is shown: pins, edits, switches, restarts and undo apply to it",
                    path.display()
                ),
            }),
            Err(reason) => self.emit(rejected("show file", &reason)),
        }
    }
}
