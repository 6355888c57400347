//! The jobs of a build-and-boot loop (`retest`, `check`): for each arch or
//! toolchain cell, the make commands that build its images (the wrapper
//! Makefile, Buildroot underneath: make stays the build engine) and how
//! its image boots. [`crate::lanes`] runs them.

use std::path::{Path, PathBuf};

use crate::arch_table::{ArchSpec, ArchTable};
use crate::error::HarnessError;

/// The kernel argument of a quick run: each module loaded 3 times, not 100.
pub const QUICK: &str = "rusttest=quick";

/// The runner's package, rebuilt by every retest.
const RUNNER: &str = "rust-tests";

/// One arch's (or cell's) build and boot.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub spec: ArchSpec,
    /// `<output root>/<output name>`.
    pub output: PathBuf,
    /// The make command lines (after `make`), run in order in the tree.
    pub builds: Vec<Vec<String>>,
    /// Extra kernel arguments of its boot.
    pub kernel_args: Vec<String>,
    /// Set when there is nothing to rebuild (`retest` of an output never
    /// built): the command that builds it.
    pub not_built: Option<String>,
    /// Named on the command line (not only through `all`): its absence
    /// is an error, not a row.
    pub named: bool,
    /// `build` (afresh) or `rebuild`: its step's and log's name.
    pub kind: &'static str,
}

impl Job {
    /// Its build log's name in the logs directory.
    pub fn log_name(&self) -> String {
        format!("{}-{}.log", self.kind, self.spec.name)
    }
}

/// The arches of `names` (`all`: every arch of the table, not the cells),
/// each once, in the order given.
fn selected<'t>(
    table: &'t ArchTable,
    names: &[String],
) -> Result<Vec<(&'t ArchSpec, bool)>, HarnessError> {
    let mut chosen: Vec<(&ArchSpec, bool)> = Vec::new();
    for name in names {
        let (specs, named) = if name == "all" {
            (table.select(&[])?, false)
        } else {
            (table.select(std::slice::from_ref(name))?, true)
        };
        for spec in specs {
            if !chosen.iter().any(|(s, _)| s.name == spec.name) {
                chosen.push((spec, named));
            }
        }
    }
    Ok(chosen)
}

fn output_arg(output: &Path) -> String {
    format!("O={}", output.display())
}

/// `check`: each arch built afresh (`make <defconfig> [TOOLCHAIN=..]`, then
/// `make`), booted with every test; a toolchain cell in quick mode.
pub fn check_jobs(
    table: &ArchTable,
    names: &[String],
    output_root: &Path,
) -> Result<Vec<Job>, HarnessError> {
    let jobs = selected(table, names)?.into_iter().map(|(spec, named)| {
        let output = output_root.join(spec.output_name());
        let mut configure = vec![output_arg(&output), spec.defconfig.clone()];
        configure.extend(spec.toolchain.as_ref().map(|t| format!("TOOLCHAIN={t}")));
        Job {
            builds: vec![configure, vec![output_arg(&output)]],
            kernel_args: spec.toolchain.iter().map(|_| QUICK.to_string()).collect(),
            spec: spec.clone(),
            output,
            not_built: None,
            named,
            kind: "build",
        }
    });
    Ok(jobs.collect())
}

/// `retest`: what changed rebuilt in each arch's existing output (the
/// kernel, the kernel-module packages it has, the runner, the images),
/// booted in quick mode.
pub fn retest_jobs(
    table: &ArchTable,
    names: &[String],
    output_root: &Path,
    tree: &Path,
) -> Result<Vec<Job>, HarnessError> {
    let modules = kernel_module_packages(tree);
    let jobs = selected(table, names)?.into_iter().map(|(spec, named)| {
        let output = output_root.join(spec.output_name());
        let config = std::fs::read_to_string(output.join(".config")).ok();
        let mut goals = vec![output_arg(&output)];
        goals.extend(
            config
                .as_deref()
                .map_or_else(Vec::new, |c| rebuild_goals(c, &modules)),
        );
        goals.push("all".to_string());
        Job {
            builds: vec![goals],
            kernel_args: vec![QUICK.to_string()],
            not_built: config.is_none().then(|| spec.build_command()),
            spec: spec.clone(),
            output,
            named,
            kind: "rebuild",
        }
    });
    Ok(jobs.collect())
}

/// The packages of the tree built with Buildroot's `kernel-module` (or the
/// tree's `rust-kernel-module`): `package/<name>/<name>.mk`.
fn kernel_module_packages(tree: &Path) -> Vec<String> {
    let Ok(dirs) = std::fs::read_dir(tree.join("package")) else {
        return Vec::new();
    };
    let mut found: Vec<String> = dirs
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|name| {
            let mk = tree.join("package").join(name).join(format!("{name}.mk"));
            std::fs::read_to_string(mk).is_ok_and(|text| {
                text.lines().any(|l| {
                    let l = l.trim();
                    l == "$(eval $(kernel-module))" || l == "$(eval $(rust-kernel-module))"
                })
            })
        })
        .collect();
    found.sort();
    found
}

/// The rebuild goals of an output with this Buildroot `.config`: its kernel
/// (`linux`, or `linux-um` for UML), the kernel-module packages it enables
/// (built against that kernel), the runner and its manifest (`rust-tests`:
/// its source is copied into the output only by a rebuild).
fn rebuild_goals(config: &str, modules: &[String]) -> Vec<String> {
    let enabled = |package: &str| {
        let symbol = format!("BR2_PACKAGE_{}=y", package.to_uppercase().replace('-', "_"));
        config.lines().any(|l| l == symbol)
    };
    let kernel = if enabled("linux-um") {
        "linux-um"
    } else {
        "linux"
    };
    let mut goals = vec![format!("{kernel}-rebuild")];
    let others = modules.iter().filter(|m| *m != RUNNER && enabled(m));
    goals.extend(others.map(|m| format!("{m}-rebuild")));
    goals.push(format!("{RUNNER}-rebuild"));
    goals
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn table() -> ArchTable {
        ArchTable::load(None, &tree()).expect("the tree's table loads")
    }

    #[test]
    fn check_builds_afresh_and_boots_cells_quick() {
        let names = ["x86_64".to_string(), "x86_64+llvm".to_string()];
        let jobs = check_jobs(&table(), &names, Path::new("/o")).expect("known arches");
        assert_eq!(jobs.len(), 2);
        assert_eq!(
            jobs[0].builds,
            [
                vec![
                    "O=/o/qemu_x86_64_rust_defconfig",
                    "qemu_x86_64_rust_defconfig"
                ],
                vec!["O=/o/qemu_x86_64_rust_defconfig"]
            ]
        );
        assert!(jobs[0].kernel_args.is_empty());
        assert_eq!(
            jobs[1].builds[0],
            [
                "O=/o/qemu_x86_64_rust_defconfig+llvm",
                "qemu_x86_64_rust_defconfig",
                "TOOLCHAIN=llvm"
            ]
        );
        assert_eq!(jobs[1].kernel_args, [QUICK]);
    }

    #[test]
    fn all_is_every_arch_once_and_unknown_names_fail() {
        let table = table();
        let names = ["all".to_string(), "x86_64".to_string()];
        let jobs = check_jobs(&table, &names, Path::new("/o")).expect("known arches");
        assert_eq!(jobs.len(), table.arches.len());
        assert!(jobs.iter().all(|j| !j.named && j.spec.toolchain.is_none()));
        let err =
            check_jobs(&table, &["x86".to_string()], Path::new("/o")).expect_err("no such arch");
        assert!(err.to_string().contains("x86_64"), "{err}");
    }

    #[test]
    fn retest_of_an_output_never_built_names_the_build() {
        let jobs = retest_jobs(
            &table(),
            &["riscv64".to_string()],
            Path::new("/nonexistent"),
            &tree(),
        )
        .expect("known arch");
        assert_eq!(
            jobs[0].not_built.as_deref(),
            Some("make qemu_riscv64_rust_defconfig && make")
        );
        assert!(jobs[0].named);
    }

    #[test]
    fn rebuild_goals_follow_the_config() {
        let modules = kernel_module_packages(&tree());
        assert!(!modules.is_empty(), "the tree has kernel-module packages");
        let qemu = rebuild_goals("BR2_PACKAGE_RUST_TESTS=y\n", &modules);
        assert_eq!(qemu, ["linux-rebuild", "rust-tests-rebuild"]);
        let example = modules
            .iter()
            .find(|m| *m != RUNNER)
            .expect("a module package");
        let config = format!(
            "BR2_PACKAGE_LINUX_UM=y\nBR2_PACKAGE_RUST_TESTS=y\nBR2_PACKAGE_{}=y\n",
            example.to_uppercase().replace('-', "_")
        );
        let um = rebuild_goals(&config, &modules);
        assert_eq!(
            um,
            [
                "linux-um-rebuild".to_string(),
                format!("{example}-rebuild"),
                "rust-tests-rebuild".to_string()
            ]
        );
    }
}
