//! The pipeline picker: the catalogue's pipelines, narrowed down by what is typed; Tab
//! completes the stage being typed, Enter switches to the typed pipeline (or the highlighted
//! one), and what cannot run is said plainly before anything is sent.

use ratatui::Frame;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::panes::View;
use crate::tui::widgets::{block, centered, first_visible_row, overlay_area};
use whittle_core::algorithms::hdd::Algorithm;
use whittle_core::engine::pipeline::{Pipeline, PipelineInfo};
use whittle_core::text::describe::ellipsize;

/// The widest the pipelines' name column gets; longer names are cut there.
const NAME_COLUMN: usize = 28;

/// What the picker knows besides the highlighted entry.
#[derive(Clone, Debug, Default)]
pub struct Picker {
    pub catalogue: Vec<PipelineInfo>,
    /// The input's language is known (tree stages can run).
    pub tree: bool,
    /// What was typed.
    pub input: String,
    /// Why the last Enter switched to nothing.
    pub error: Option<String>,
    /// The highlight was moved since the last key typed: Enter takes it.
    pub moved: bool,
}

/// The names a stage can have: ddmin with its atoms, and every tree algorithm.
pub fn stage_names() -> Vec<String> {
    let mut names: Vec<String> = ["ddmin", "ddmin:line", "ddmin:char", "ddmin:token"]
        .into_iter()
        .map(String::from)
        .collect();
    names.extend(Algorithm::all().map(|algorithm| algorithm.name().to_owned()));
    names
}

/// The longest prefix all of `words` share.
fn common_prefix<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    let mut words = words.into_iter();
    let Some(first) = words.next() else {
        return String::new();
    };
    let mut prefix = first.to_string();
    for word in words {
        while !word.starts_with(&prefix) {
            prefix.pop();
        }
    }
    prefix
}

impl Picker {
    pub fn new(catalogue: Vec<PipelineInfo>, tree: bool) -> Picker {
        Picker {
            catalogue,
            tree,
            ..Picker::default()
        }
    }

    /// Starts afresh (the picker was opened).
    pub fn reset(&mut self) {
        self.input.clear();
        self.error = None;
        self.moved = false;
    }

    /// The entries that match what was typed (all when nothing was).
    pub fn matching(&self) -> Vec<&PipelineInfo> {
        let typed = self.input.trim().to_ascii_lowercase();
        self.catalogue
            .iter()
            .filter(|entry| typed.is_empty() || entry.name.contains(&typed))
            .collect()
    }

    pub fn type_char(&mut self, c: char) {
        self.input.push(c);
        self.error = None;
        self.moved = false;
    }

    pub fn backspace(&mut self) {
        self.input.pop();
        self.error = None;
        self.moved = false;
    }

    /// Completes the stage being typed (after the last `+`) as far as the stage names agree.
    pub fn complete(&mut self) {
        let start = self.input.rfind('+').map_or(0, |at| at + 1);
        let partial = self.input[start..].trim().to_ascii_lowercase();
        let names = stage_names();
        let matching: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|name| name.starts_with(&partial))
            .collect();
        if matching.is_empty() {
            self.error = Some(format!("no stage starts with `{partial}`"));
            return;
        }
        let completed = common_prefix(matching.iter().copied());
        self.input.truncate(start);
        self.input.push_str(&completed);
        self.error = (matching.len() > 1).then(|| {
            let shown: Vec<&str> = matching.iter().copied().take(8).collect();
            format!("could be {}", shown.join(", "))
        });
    }

    /// What Enter switches to: the highlighted entry when it was moved to (or nothing was
    /// typed), else the pipeline typed (or, when that does not parse, the highlighted entry).
    pub fn choice(&self, selected: usize) -> Result<String, String> {
        let matching = self.matching();
        let highlighted = matching.get(selected).map(|entry| entry.name.clone());
        if self.moved || self.input.trim().is_empty() {
            return highlighted.ok_or_else(|| "no pipeline is highlighted".to_string());
        }
        match self.input.trim().parse::<Pipeline>() {
            Ok(pipeline) if pipeline.needs_tree() && !self.tree => Err(format!(
                "`{pipeline}` works on parse trees, but the input's language is unknown here"
            )),
            Ok(pipeline) => Ok(pipeline.to_string()),
            Err(error) => highlighted.ok_or(error),
        }
    }

    pub fn draw(&self, view: &View, selected: usize, frame: &mut Frame) {
        let theme = view.theme;
        let matching = self.matching();
        let name_width = matching
            .iter()
            .map(|p| p.name.chars().count())
            .max()
            .unwrap_or(8)
            .min(NAME_COLUMN);
        // A name cut to fit the column is shown whole under the list when highlighted.
        let cut_name = matching
            .get(selected)
            .filter(|pipeline| pipeline.name.chars().count() > name_width)
            .map(|pipeline| pipeline.name.as_str());
        let footer = 7 + u16::from(cut_name.is_some());
        let wanted = matching.len() as u16 + footer;
        let area = centered(
            overlay_area(frame.area()),
            100,
            wanted.min(frame.area().height.saturating_sub(4)),
        );
        let width = area.width.saturating_sub(2) as usize;
        let rows = area.height.saturating_sub(footer) as usize;
        let first = first_visible_row(selected, matching.len(), rows);
        let mut lines = vec![Line::from(vec![
            Span::styled("type: ", theme.muted),
            Span::styled(format!("{}▏", self.input), theme.accent),
        ])];
        for (index, pipeline) in matching.iter().enumerate().skip(first).take(rows) {
            lines.push(pipeline_row(
                view,
                pipeline,
                index == selected,
                name_width,
                width,
            ));
        }
        if matching.is_empty() {
            lines.push(Line::styled(
                "  no listed pipeline matches: Enter tries what is typed",
                theme.muted,
            ));
        }
        lines.extend(self.footer_lines(view, cut_name, width));
        let title = if matching.is_empty() {
            " Algorithm · no match ".to_string()
        } else {
            format!(" Algorithm · {}/{} ", selected + 1, matching.len())
        };
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(lines).block(block(title, true, theme)), area);
    }

    /// Under the list: the whole name cut in it, the error or the pipeline running now, and the
    /// keys.
    fn footer_lines(
        &self,
        view: &View,
        cut_name: Option<&str>,
        width: usize,
    ) -> Vec<Line<'static>> {
        let theme = view.theme;
        let mut lines = vec![Line::raw("")];
        if let Some(name) = cut_name {
            lines.push(Line::styled(ellipsize(name, width), theme.accent));
        }
        match &self.error {
            Some(error) => lines.push(Line::styled(ellipsize(error, width), theme.warning)),
            None => lines.push(Line::styled(
                ellipsize(&format!("now: {}", view.snapshot.pipeline), width),
                theme.muted,
            )),
        }
        lines.push(Line::styled(
            ellipsize(
                "type a pipeline (hoist+hddh, ddmin:token) · Tab completes · ↑ ↓ choose",
                width,
            ),
            theme.muted,
        ));
        lines.push(Line::styled(
            ellipsize(
                "Enter switches (from the current best) · Esc cancels",
                width,
            ),
            theme.muted,
        ));
        lines
    }
}

/// One pipeline of the list: its name in a column of `name_width`, its description after.
fn pipeline_row(
    view: &View,
    pipeline: &PipelineInfo,
    selected: bool,
    name_width: usize,
    width: usize,
) -> Line<'static> {
    let theme = view.theme;
    let style = if selected {
        theme.selection.add_modifier(Modifier::BOLD)
    } else {
        theme.base
    };
    let marker = if selected { "▶ " } else { "  " };
    Line::from(vec![
        Span::styled(marker, theme.accent),
        Span::styled(
            format!("{:<name_width$}  ", ellipsize(&pipeline.name, name_width)),
            style,
        ),
        Span::styled(
            ellipsize(&pipeline.description, width.saturating_sub(name_width + 4)),
            theme.muted,
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_picker() -> Picker {
        Picker::new(whittle_core::engine::pipeline::catalogue(true), true)
    }

    #[test]
    fn typing_narrows_the_list_and_tab_completes_the_stage() {
        let mut picker = full_picker();
        for c in "hoist+hd".chars() {
            picker.type_char(c);
        }
        assert!(
            picker
                .matching()
                .iter()
                .all(|e| e.name.contains("hoist+hd"))
        );
        picker.complete();
        assert_eq!(
            picker.input, "hoist+hdd",
            "hdd, hddh, hddhr, hddr share `hdd`"
        );
        assert!(picker.error.as_deref().unwrap().contains("hddhr"));
        picker.type_char('h');
        picker.type_char('r');
        picker.complete();
        assert_eq!(picker.input, "hoist+hddhr");
        // A whole name that begins another: both are shown, the name stays as typed.
        assert!(picker.error.as_deref().unwrap().contains("hddhr-sweep"));
        assert_eq!(picker.choice(0), Ok("hoist+hddhr".to_string()));
    }

    #[test]
    fn enter_takes_what_was_typed_or_says_why_not() {
        let mut picker = full_picker();
        for c in "hdd+ddmin:token".chars() {
            picker.type_char(c);
        }
        assert!(picker.matching().is_empty());
        assert_eq!(picker.choice(0), Ok("hdd+ddmin:token".to_string()));
        picker.reset();
        for c in "hdd+bogus".chars() {
            picker.type_char(c);
        }
        let error = picker.choice(0).unwrap_err();
        assert!(error.contains("bogus"), "{error}");
        // Without a language, tree pipelines cannot run.
        let mut text_only = Picker::new(whittle_core::engine::pipeline::catalogue(false), false);
        for c in "hdd".chars() {
            text_only.type_char(c);
        }
        let error = text_only.choice(0).unwrap_err();
        assert!(error.contains("language is unknown"), "{error}");
        // Moving the highlight chooses it.
        let mut moved = full_picker();
        moved.type_char('d');
        moved.moved = true;
        assert_eq!(moved.choice(1), Ok(moved.matching()[1].name.clone()));
    }
}
