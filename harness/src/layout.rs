//! Where things are: the repository root, the Buildroot output root and the
//! results directory (docs/test-protocol.md, "Layout in the repository").

use std::path::{Path, PathBuf};

use crate::cli::Dirs;

/// Default output root, relative to the repository root.
pub const DEFAULT_OUTPUT: &str = "output";
/// Default results directory, relative to the repository root.
pub const DEFAULT_RESULTS: &str = "output/tests";
/// The file that marks the repository root (a BR2_EXTERNAL tree).
const ROOT_MARKER: &str = "external.desc";

/// The nearest directory, from `start` upwards, that holds `external.desc`.
pub fn find_repo_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(ROOT_MARKER).is_file())
        .map(Path::to_path_buf)
}

/// The BR2_EXTERNAL tree the harness reads its inputs from (the runner's
/// manifest, the boards' QEMU commands, the defconfigs): `--tree`, else the
/// repository around the current directory, else the one the harness was
/// built in.
pub fn tree_root(option: Option<&Path>) -> PathBuf {
    if let Some(dir) = option {
        return dir.to_path_buf();
    }
    let built_in = || find_repo_root(Path::new(env!("CARGO_MANIFEST_DIR")));
    std::env::current_dir()
        .ok()
        .and_then(|cwd| find_repo_root(&cwd))
        .or_else(built_in)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Resolved directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Buildroot output root: `<output>/<defconfig>/images/`.
    pub output: PathBuf,
    /// Results: `<results>/<arch>/...`, `<results>/arch-matrix.md`.
    pub results: PathBuf,
}

impl Layout {
    /// Options win; the defaults are relative to the repository root (found
    /// from the current directory), or to the current directory outside one.
    pub fn resolve(dirs: &Dirs) -> Layout {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        // Relative to where the command ran, as absolute paths: QEMU and
        // UML run in the images directory (a UML copy-on-write file is
        // under the results directory).
        let dirs = Dirs {
            output_dir: dirs.output_dir.as_ref().map(|p| cwd.join(p)),
            results_dir: dirs.results_dir.as_ref().map(|p| cwd.join(p)),
        };
        let base = find_repo_root(&cwd).unwrap_or(cwd);
        Layout::resolve_from(&dirs, &base)
    }

    pub fn resolve_from(dirs: &Dirs, base: &Path) -> Layout {
        Layout {
            output: dirs
                .output_dir
                .clone()
                .unwrap_or_else(|| base.join(DEFAULT_OUTPUT)),
            results: dirs
                .results_dir
                .clone()
                .unwrap_or_else(|| base.join(DEFAULT_RESULTS)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_directories_become_absolute() {
        let dirs = Dirs {
            output_dir: Some(PathBuf::from("out")),
            results_dir: Some(PathBuf::from("res")),
        };
        let layout = Layout::resolve(&dirs);
        assert!(layout.output.is_absolute() && layout.output.ends_with("out"));
        assert!(layout.results.is_absolute() && layout.results.ends_with("res"));
    }

    #[test]
    fn finds_this_repository() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = find_repo_root(here);
        if here.parent().is_some_and(|p| p.join(ROOT_MARKER).is_file()) {
            assert_eq!(root.as_deref(), here.parent());
        }
        assert_eq!(find_repo_root(Path::new("/")), None);
        assert_eq!(tree_root(Some(Path::new("/t"))), Path::new("/t"));
        assert!(tree_root(None).join(ROOT_MARKER).is_file());
    }

    #[test]
    fn defaults_and_options() {
        let dirs = Dirs {
            output_dir: None,
            results_dir: None,
        };
        let layout = Layout::resolve_from(&dirs, Path::new("/repo"));
        assert_eq!(layout.output, Path::new("/repo/output"));
        assert_eq!(layout.results, Path::new("/repo/output/tests"));
        let dirs = Dirs {
            output_dir: Some("/o".into()),
            results_dir: Some("r".into()),
        };
        let layout = Layout::resolve_from(&dirs, Path::new("/repo"));
        assert_eq!(layout.output, Path::new("/o"));
        assert_eq!(layout.results, Path::new("r"));
    }
}
