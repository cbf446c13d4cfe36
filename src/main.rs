//! The `whittle` binary: parses the command line and hands over to the library.

fn main() {
    std::process::exit(whittle::cli::main());
}
