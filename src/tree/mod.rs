//! Structured inputs: tree-sitter parse trees, grammar profiles with minimal replacements Φ,
//! the formatting-preserving unparser and the syntax guard.

/// Entry point of `whittle tree FILE`.
pub fn tree_command(args: &crate::cli::TreeArgs) -> anyhow::Result<i32> {
    let _ = args;
    anyhow::bail!("`whittle tree` is not available yet")
}

/// Entry point of `whittle languages`.
pub fn languages_command() -> anyhow::Result<i32> {
    anyhow::bail!("`whittle languages` is not available yet")
}

/// Entry point of `whittle grammars`.
pub fn grammars_command(args: &crate::cli::GrammarsArgs) -> anyhow::Result<i32> {
    let _ = args;
    anyhow::bail!("`whittle grammars` is not available yet")
}
