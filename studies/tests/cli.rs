//! `fc-studies`'s command line: bad flags and files give one line naming
//! the flag, before any run.

use std::{
    path::PathBuf,
    process::{Command, Output},
};

fn fc_studies(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fc-studies"))
        .args(args)
        .output()
        .expect("the fc-studies binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory under the system temp dir, unique per test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fc-studies-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn readme_refuses_a_file_without_blocks_before_running() {
    let dir = scratch("readme");
    let plain = dir.join("plain.md");
    std::fs::write(&plain, "# nothing generated here\n").unwrap();
    let broken = dir.join("broken.md");
    std::fs::write(&broken, "<!-- fc-lab readme: mission -->\nno end\n").unwrap();
    for (file, want) in [
        (plain.display().to_string(), "no block marked"),
        (
            broken.display().to_string(),
            "has no <!-- /fc-lab readme -->",
        ),
        (
            "/nonexistent/README.md".to_owned(),
            "/nonexistent/README.md:",
        ),
    ] {
        let out = fc_studies(&["readme", "--check", "--file", &file]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: --file: "), "{err}");
        assert!(err.contains(want), "{file}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
