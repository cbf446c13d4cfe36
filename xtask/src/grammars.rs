//! `cargo xtask grammars`: regenerates (or checks) the generated grammar tables under
//! `grammars/` from the grammar crates' `src/grammar.json`, found through `cargo metadata`.
//!
//! The generator's modules name the tree layer's modules they use through `super::` (`profile`,
//! `text`), as they did inside it.

pub mod generate;
pub mod grammar_json;
pub mod shortest;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use serde::Deserialize;

use whittle_core::tree::languages;
use whittle_core::tree::profile::{GeneratedTable, Profile};
// For the generator's `super::profile` and `super::text`.
use whittle_core::tree::{profile, text};

use generate::{GeneratorInput, generate};
use grammar_json::{Grammar, parse_node_types};

/// Where a grammar crate lives on disk.
#[derive(Debug, Clone)]
pub struct GrammarCrate {
    pub version: String,
    pub directory: PathBuf,
}

#[derive(Deserialize)]
struct Metadata {
    packages: Vec<MetadataPackage>,
}

#[derive(Deserialize)]
struct MetadataPackage {
    name: String,
    version: String,
    manifest_path: PathBuf,
}

/// The source directory of whittle (holds `Cargo.toml` and `grammars/`): the parent of this
/// crate's.
pub fn default_project_dir() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().unwrap_or(xtask).to_path_buf()
}

/// Finds the grammar crates of the project's dependency graph with `cargo metadata`.
pub fn locate_grammar_crates(project_dir: &Path) -> anyhow::Result<BTreeMap<String, GrammarCrate>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .arg("metadata")
        .arg("--format-version=1")
        .arg("--all-features")
        .arg("--manifest-path")
        .arg(project_dir.join("Cargo.toml"))
        .output()
        .context("cannot run `cargo metadata` (is cargo installed?)")?;
    if !output.status.success() {
        bail!(
            "`cargo metadata` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let metadata: Metadata =
        serde_json::from_slice(&output.stdout).context("unexpected `cargo metadata` output")?;
    let mut crates = BTreeMap::new();
    for package in metadata.packages {
        if !package.name.starts_with("tree-sitter-") {
            continue;
        }
        let Some(directory) = package.manifest_path.parent() else {
            continue;
        };
        crates.insert(
            package.name,
            GrammarCrate {
                version: package.version,
                directory: directory.to_path_buf(),
            },
        );
    }
    Ok(crates)
}

/// Generates the table of one language from its profile and grammar crate.
pub fn generate_table(
    profile: &Profile,
    crates: &BTreeMap<String, GrammarCrate>,
) -> anyhow::Result<GeneratedTable> {
    let grammar_crate = crates.get(&profile.grammar_crate).with_context(|| {
        format!(
            "grammar crate `{}` is not a dependency of the project",
            profile.grammar_crate
        )
    })?;
    let mut source_dir = grammar_crate.directory.clone();
    if let Some(dir) = &profile.grammar_dir {
        source_dir.push(dir);
    }
    source_dir.push("src");
    let grammar_path = source_dir.join("grammar.json");
    let node_types_path = source_dir.join("node-types.json");
    let grammar_text = std::fs::read_to_string(&grammar_path)
        .with_context(|| format!("cannot read {}", grammar_path.display()))?;
    let node_types_text = std::fs::read_to_string(&node_types_path)
        .with_context(|| format!("cannot read {}", node_types_path.display()))?;
    let grammar = Grammar::from_json(&grammar_text)
        .with_context(|| format!("cannot parse {}", grammar_path.display()))?;
    let node_types = parse_node_types(&node_types_text)
        .with_context(|| format!("cannot parse {}", node_types_path.display()))?;
    let mut label = format!("{} {}", profile.grammar_crate, grammar_crate.version);
    if let Some(dir) = &profile.grammar_dir {
        label.push_str(&format!(" ({dir})"));
    }
    let input = GeneratorInput {
        language: &profile.name,
        source: &label,
        grammar: &grammar,
        node_types: &node_types,
        overlay: &profile.overlay,
    };
    Ok(generate(&input))
}

/// The generated tables of every known language, with the path each belongs to.
pub fn generate_all(project_dir: &Path) -> anyhow::Result<Vec<(PathBuf, GeneratedTable)>> {
    let crates = locate_grammar_crates(project_dir)?;
    let grammars_dir = project_dir.join("grammars");
    let mut out = Vec::new();
    for language in languages() {
        let profile_path = grammars_dir.join(format!("{}.toml", language.name()));
        let text = std::fs::read_to_string(&profile_path)
            .with_context(|| format!("cannot read {}", profile_path.display()))?;
        let profile =
            Profile::from_toml(&text).with_context(|| format!("in {}", profile_path.display()))?;
        let table = generate_table(&profile, &crates)
            .with_context(|| format!("language `{}`", profile.name))?;
        out.push((
            grammars_dir.join(format!("{}.generated.toml", profile.name)),
            table,
        ));
    }
    Ok(out)
}

/// Entry point of `cargo xtask grammars`: writes the tables (`generate`), compares them with the
/// files (`check`), or summarises the embedded ones; `project` holds `grammars/`.
pub fn grammars_command(
    generate: bool,
    check: bool,
    project: Option<&Path>,
) -> anyhow::Result<i32> {
    let project_dir = project.map_or_else(default_project_dir, Path::to_path_buf);
    if !generate && !check {
        return summary();
    }
    let tables = generate_all(&project_dir)?;
    let mut stale = Vec::new();
    for (path, table) in &tables {
        let text = table.to_toml();
        let current = std::fs::read_to_string(path).unwrap_or_default();
        if current == text {
            continue;
        }
        if generate {
            std::fs::write(path, &text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!(
                "wrote {} ({} kinds with Φ, {} unknown)",
                path.display(),
                table.phi.len(),
                table.unknown.len()
            );
        } else {
            stale.push(path.display().to_string());
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "out of date (run `cargo xtask grammars --generate`): {}",
            stale.join(", ")
        );
        return Ok(1);
    }
    if check {
        println!("all {} grammar tables are up to date", tables.len());
    }
    Ok(0)
}

/// Prints what the embedded tables hold, per language.
fn summary() -> anyhow::Result<i32> {
    println!(
        "{:<12} {:>6} {:>8} {:>9} {:>6} {:>11}",
        "language", "Φ", "unknown", "optional", "lists", "supertypes"
    );
    for language in languages() {
        match language.generated_table() {
            Ok(table) => {
                let optional: usize = table
                    .children
                    .values()
                    .map(|presence| presence.optional.len() + presence.repeated.len())
                    .sum();
                println!(
                    "{:<12} {:>6} {:>8} {:>9} {:>6} {:>11}",
                    language.name(),
                    table.phi.len(),
                    table.unknown.len(),
                    optional,
                    table.lists.len(),
                    table.supertypes.len()
                );
            }
            Err(_) => println!(
                "{:<12} (not compiled in: feature `{}`)",
                language.name(),
                language.feature()
            ),
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tables_are_up_to_date() {
        let project = default_project_dir();
        let tables =
            generate_all(&project).expect("generating the tables (needs `cargo metadata`)");
        assert_eq!(tables.len(), languages().len());
        let mut stale = Vec::new();
        for (path, table) in &tables {
            let on_disk = std::fs::read_to_string(path).unwrap_or_default();
            if on_disk != table.to_toml() {
                stale.push(path.display().to_string());
            }
            // The written form reads back to the same table.
            assert_eq!(
                &GeneratedTable::from_toml(&table.to_toml()).unwrap(),
                table,
                "{}",
                path.display()
            );
        }
        assert!(
            stale.is_empty(),
            "out of date, run `cargo xtask grammars --generate`: {stale:?}"
        );
    }
}
