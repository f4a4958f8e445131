//! Output paths checked before a command simulates anything, so a bad
//! `--plot`, `--qlog` or `--out` costs nothing; errors name the flag.

use std::{
    fs::{self, OpenOptions},
    path::Path,
};

use crate::error::LabError;

/// `flag: path: reason`, as a flag error (exit code 2: nothing ran).
fn refuse(flag: &str, path: &Path, reason: impl std::fmt::Display) -> LabError {
    LabError::flag(flag, format!("{}: {reason}", path.display()))
}

/// Makes sure `dir` is a directory this process can create files in
/// (creating it and its parents if missing).
///
/// # Errors
/// [`LabError::Flag`] naming `flag` when it cannot be created or written.
pub fn writable_dir(flag: &str, dir: &Path) -> Result<(), LabError> {
    if dir.as_os_str().is_empty() {
        return Err(LabError::flag(flag, "expected a directory, got \"\""));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(refuse(flag, dir, "exists and is not a directory"));
    }
    fs::create_dir_all(dir)
        .map_err(|e| refuse(flag, dir, format!("cannot create the directory ({e})")))?;
    let probe = dir.join(format!(".fc-lab-write-test-{}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| refuse(flag, dir, format!("cannot write in the directory ({e})")))?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

/// Makes sure `file` can be written: not a directory, in an existing
/// directory. An existing file is left as it is until the run has its
/// result.
///
/// # Errors
/// [`LabError::Flag`] naming `flag` otherwise.
pub fn writable_file(flag: &str, file: &Path) -> Result<(), LabError> {
    if file.as_os_str().is_empty() {
        return Err(LabError::flag(flag, "expected a file name, got \"\""));
    }
    if file.is_dir() {
        return Err(refuse(flag, file, "is a directory; expected a file name"));
    }
    let parent = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(refuse(
            flag,
            file,
            format!("the directory {} does not exist", parent.display()),
        ));
    }
    let existed = file.exists();
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(file)
        .map_err(|e| refuse(flag, file, format!("cannot write the file ({e})")))?;
    if !existed {
        let _ = fs::remove_file(file);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_places_name_the_flag() {
        let tmp = std::env::temp_dir().join(format!("fc-lab-outputs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).unwrap();
        // A directory to create, and a file in an existing directory.
        writable_dir("--qlog", &tmp.join("a/b")).unwrap();
        assert!(tmp.join("a/b").is_dir());
        writable_file("--plot", &tmp.join("x.svg")).unwrap();
        assert!(!tmp.join("x.svg").exists(), "the probe leaves nothing");

        let e = writable_file("--plot", &tmp.join("missing/x.svg")).unwrap_err();
        assert!(e.to_string().starts_with("--plot: "), "{e}");
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = writable_file("--plot", &tmp).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        fs::write(tmp.join("f"), "x").unwrap();
        let e = writable_dir("--qlog", &tmp.join("f")).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
        let e = writable_dir("--out", &tmp.join("f/sub")).unwrap_err();
        assert!(e.to_string().starts_with("--out: "), "{e}");
        assert_eq!(e.exit_code(), 2);
        fs::remove_dir_all(&tmp).unwrap();
    }
}
