//! The desk (and with it `ledger`, `checkout` and `refunds`, which it
//! depends on) never names the Workers platform: none of these crates may be
//! among its normal dependencies, however indirectly, for any target, so it
//! builds and is tested natively and decides the same wherever it runs.

const FORBIDDEN: &[&str] = &["worker", "worker-sys", "js-sys", "web-sys", "wasm-bindgen"];

#[test]
fn the_desk_depends_on_no_platform_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "tree", "--locked", "-p", "desk", "-e", "normal", "--target", "all",
        ])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        names.contains(&"ledger") && names.contains(&"checkout") && names.contains(&"refunds"),
        "{tree}"
    );
    for name in names {
        assert!(
            !FORBIDDEN.contains(&name),
            "desk depends on {name}:\n{tree}"
        );
    }
}
