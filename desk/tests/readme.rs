//! The README's tables of answers agree with [`desk::Code`]: every code a
//! table lists exists, with the status the table gives it, and every code
//! is listed.

use desk::Code;

#[test]
fn every_code_in_the_readme_has_the_status_the_code_table_gives_it() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the README");
    let mut checked = 0;
    let mut seen = std::collections::HashSet::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| status | codes or a body | when |`
        let (Some(status), Some(second)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(status) = status.parse::<u16>() else {
            continue;
        };
        if status < 400 {
            continue;
        }
        let codes: Vec<String> = match second.find("\"error\": \"") {
            Some(at) => {
                let rest = &second[at + 10..];
                vec![rest[..rest.find('"').expect("a closing quote")].to_string()]
            }
            None => second
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect(),
        };
        assert!(!codes.is_empty(), "no code in: {line}");
        for code in codes {
            let known = Code::ALL.iter().find(|c| c.as_str() == code);
            let known =
                known.unwrap_or_else(|| panic!("the README names `{code}`, which no Code has"));
            assert_eq!(known.status(), status, "`{code}` in: {line}");
            seen.insert(*known);
            checked += 1;
        }
    }
    assert!(
        checked >= 20,
        "only {checked} codes found: did the tables move?"
    );
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !seen.contains(c))
        .map(|c| c.as_str())
        .collect();
    assert!(missing.is_empty(), "the README's tables lack {missing:?}");
}
