//! Where the panes go. From 100×30 up every pane has its place (the tree pane's width can be
//! changed); on smaller screens the test case and the Configuration pane stay, and the others
//! share a deck with a tab bar (number keys or a click choose the tab). The header and the
//! status line are always there.

use ratatui::layout::{Constraint, Layout, Rect};

use super::panes::Pane;

/// The smallest screen on which every pane has its own place.
pub const WIDE: (u16, u16) = (100, 30);

/// The compact layout's deck: its tab bar and the pane it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deck {
    pub bar: Rect,
    /// Where each tab's name is on the bar (for clicks).
    pub tabs: Vec<(Pane, Rect)>,
    pub pane: Pane,
    pub area: Rect,
    /// The labels are written without their padding (many tabs on a narrow bar).
    pub tight: bool,
}

/// Where everything goes on one screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Screen {
    pub header: Rect,
    pub footer: Rect,
    /// The panes drawn, and where.
    pub panes: Vec<(Pane, Rect)>,
    pub deck: Option<Deck>,
}

impl Screen {
    /// The pane at a point of the screen.
    pub fn pane_at(&self, column: u16, row: u16) -> Option<(Pane, Rect)> {
        let point = ratatui::layout::Position { x: column, y: row };
        self.panes
            .iter()
            .find(|(_, area)| area.contains(point))
            .copied()
    }

    pub fn area(&self, pane: Pane) -> Option<Rect> {
        self.panes.iter().find(|(p, _)| *p == pane).map(|(_, a)| *a)
    }

    /// The deck's tab at a point of its bar.
    pub fn tab_at(&self, column: u16, row: u16) -> Option<Pane> {
        let point = ratatui::layout::Position { x: column, y: row };
        self.deck
            .as_ref()?
            .tabs
            .iter()
            .find(|(_, area)| area.contains(point))
            .map(|(pane, _)| *pane)
    }

    pub fn is_compact(&self) -> bool {
        self.deck.is_some()
    }
}

/// The label of a deck tab on the bar (`tight`: without its padding).
pub fn tab_label(index: usize, pane: Pane, tight: bool) -> String {
    let name = match pane {
        Pane::Statistics => "Stats",
        other => other.title(),
    };
    if tight {
        format!("{} {name}", index + 1)
    } else {
        format!(" {} {name} ", index + 1)
    }
}

/// The layout of a screen of `area`; `tree_percent` is the tree pane's width (wide layout),
/// `deck` the tab the compact layout shows, `files` the height the file list of a case of
/// several files wants (0: there is none).
pub fn compute(area: Rect, tree_percent: u16, deck: Pane, files: u16) -> Screen {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    if area.width >= WIDE.0 && area.height >= WIDE.1 {
        let mut screen = wide(body, area.width, tree_percent, files);
        screen.header = header;
        screen.footer = footer;
        return screen;
    }
    let mut screen = compact(body, deck, files > 0);
    screen.header = header;
    screen.footer = footer;
    screen
}

fn wide(body: Rect, width: u16, tree_percent: u16, files: u16) -> Screen {
    let right_width = (width * 34 / 100).clamp(38, 64);
    let [left, right] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(right_width)]).areas(body);
    let config_height = if body.height >= 40 { 19 } else { 16 };
    // The file list between the Configuration pane and the statistics, at most a third of
    // the column high.
    let files_height = files.min(body.height / 3);
    let [config, file_list, stats] = Layout::vertical([
        Constraint::Length(config_height),
        Constraint::Length(files_height),
        Constraint::Fill(1),
    ])
    .areas(right);
    let bottom_height = (body.height * 35 / 100).max(9);
    let [top, bottom] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(bottom_height)]).areas(left);
    let tree_width = (width as u32 * tree_percent as u32 / 100) as u16;
    let [tree, text] =
        Layout::horizontal([Constraint::Length(tree_width.max(16)), Constraint::Fill(1)])
            .areas(top);
    let [chart, output, history] = Layout::horizontal([
        Constraint::Percentage(40),
        Constraint::Percentage(30),
        Constraint::Percentage(30),
    ])
    .areas(bottom);
    let mut panes = vec![
        (Pane::Tree, tree),
        (Pane::TestCase, text),
        (Pane::Configuration, config),
        (Pane::Statistics, stats),
        (Pane::Chart, chart),
        (Pane::Output, output),
        (Pane::History, history),
    ];
    if files_height > 0 {
        panes.push((Pane::Files, file_list));
    }
    Screen {
        panes,
        ..Screen::default()
    }
}

fn compact(body: Rect, deck_pane: Pane, files: bool) -> Screen {
    // The Configuration pane needs about 15 rows; the deck gets the rest, at least 6.
    let deck_height = if body.height >= 30 {
        body.height * 40 / 100
    } else {
        body.height.saturating_sub(15).max(6).min(body.height / 2)
    };
    let [top, deck] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(deck_height)]).areas(body);
    let config_width = (body.width * 45 / 100).clamp(30, 46).min(body.width);
    let [text, config] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(config_width)]).areas(top);
    let [bar, deck_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(deck);
    let panes = Pane::deck(files);
    let width_of = |tight: bool| -> u16 {
        panes
            .iter()
            .enumerate()
            .map(|(index, pane)| tab_label(index, *pane, tight).chars().count() as u16 + 1)
            .sum()
    };
    let tight = width_of(false) > bar.width + 1;
    let mut tabs = Vec::new();
    let mut x = bar.x;
    for (index, pane) in panes.iter().enumerate() {
        let width = tab_label(index, *pane, tight).chars().count() as u16;
        if x + width > bar.x + bar.width {
            break;
        }
        tabs.push((*pane, Rect::new(x, bar.y, width, 1)));
        x += width + 1;
    }
    Screen {
        panes: vec![
            (Pane::TestCase, text),
            (Pane::Configuration, config),
            (deck_pane, deck_area),
        ],
        deck: Some(Deck {
            bar,
            tabs,
            pane: deck_pane,
            area: deck_area,
            tight,
        }),
        ..Screen::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pane_has_a_place_on_wide_screens() {
        let screen = compute(Rect::new(0, 0, 120, 36), 24, Pane::Steps, 0);
        assert!(!screen.is_compact());
        for pane in [
            Pane::Tree,
            Pane::TestCase,
            Pane::Configuration,
            Pane::Statistics,
            Pane::Chart,
            Pane::Output,
            Pane::History,
        ] {
            assert!(screen.area(pane).is_some(), "{pane:?}");
        }
    }

    #[test]
    fn a_case_of_several_files_gets_its_file_list() {
        let wide = compute(Rect::new(0, 0, 120, 36), 24, Pane::Steps, 5);
        let files = wide
            .area(Pane::Files)
            .expect("the file list on wide screens");
        assert_eq!(files.height, 5);
        assert_eq!(files.x, wide.area(Pane::Configuration).unwrap().x);
        assert!(
            compute(Rect::new(0, 0, 120, 36), 24, Pane::Steps, 0)
                .area(Pane::Files)
                .is_none()
        );
        // On small screens it is the deck's eighth tab.
        let compact = compute(Rect::new(0, 0, 80, 24), 24, Pane::Files, 5);
        let deck = compact.deck.as_ref().expect("a deck");
        assert_eq!(deck.pane, Pane::Files);
        assert_eq!(compact.area(Pane::Files), Some(deck.area));
        assert!(deck.tabs.iter().any(|(pane, _)| *pane == Pane::Files));
    }

    #[test]
    fn small_screens_keep_the_test_case_and_configuration_and_a_deck() {
        let screen = compute(Rect::new(0, 0, 80, 24), 24, Pane::History, 0);
        let deck = screen.deck.as_ref().expect("a deck");
        assert_eq!(deck.pane, Pane::History);
        assert_eq!(
            deck.tabs.len(),
            Pane::deck(false).len(),
            "every tab fits in 80 columns"
        );
        let config = screen.area(Pane::Configuration).unwrap();
        assert!(config.height >= 14, "{config:?}");
        assert!(config.width >= 34, "{config:?}");
        assert!(screen.area(Pane::TestCase).unwrap().width >= 34);
        assert!(deck.area.height >= 4);
        assert_eq!(screen.header.height, 1);
        assert_eq!(screen.footer.y, 23);
        // Tiny screens do not panic.
        for (width, height) in [(20, 6), (1, 1), (0, 0), (99, 29)] {
            compute(Rect::new(0, 0, width, height), 24, Pane::Steps, 0);
        }
    }
}
