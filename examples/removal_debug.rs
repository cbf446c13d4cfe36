fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let tree = whittle::tree::parse_file(&path, None, whittle::tree::Preprocess::default()).unwrap();
    let report = whittle::tree::check::removal_check(&tree).unwrap();
    let state = whittle::tree::TreeState::new(tree.clone());
    for id in report.invalid {
        let text = state.render(&whittle::tree::Candidate::removing([id]));
        let range = tree.byte_range(id);
        let start = range.start.saturating_sub(40);
        println!("== {} {:?} {:?}", tree.kind(id), range, String::from_utf8_lossy(tree.text(id)));
        println!("{}", String::from_utf8_lossy(&text[start..(range.start + 60).min(text.len())]));
    }
    println!("{}/{}", report.valid, report.tried);
}
