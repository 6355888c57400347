//! The per-architecture table: the arches the harness boots, each from its
//! board folder's `arch.toml` (`board/qemu/<arch>/arch.toml`, beside the
//! readme whose QEMU command [`crate::board`] reads; the fields:
//! [`ArchSpec`]), the cells of the toolchain axis ([`crate::axis`]) and
//! each arch's LAVA runs.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::board::{board_files, BootCommand, BOARD_DIR};
use crate::error::HarnessError;

/// Words the harness appends to the kernel command line. Expedited RCU
/// grace periods: every module unload waits for several (more with
/// lockdep), which made the 100x load/unload loops ~6x slower.
pub const CMDLINE_EXTRA: &str = "rusttest panic=-1 printk.devkmsg=on rcupdate.rcu_expedited=1";

/// The tree's Debian package list; its `# qemu` line names QEMU's packages.
pub const DEBIAN_PACKAGES: &str = "support/debian-packages.txt";

/// The QEMU packages of the tree's Debian package list.
pub fn qemu_packages(tree: &Path) -> Vec<String> {
    std::fs::read_to_string(tree.join(DEBIAN_PACKAGES))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.strip_suffix("# qemu"))
        .flat_map(str::split_whitespace)
        .map(str::to_string)
        .collect()
}

/// How to get the QEMU `program` that is missing.
pub fn qemu_hint(program: &str, packages: &[String]) -> String {
    if packages.is_empty() {
        format!("install QEMU's {program}")
    } else {
        format!(
            "install QEMU: make setup, or apt-get install {}",
            packages.join(" ")
        )
    }
}

/// The defconfigs, relative to the tree.
pub const CONFIGS_DIR: &str = "configs";

/// One architecture the harness boots: an `[[arch]]` entry of its board
/// folder's `arch.toml` (one file may hold two kernels of one machine:
/// `board/qemu/x86_64/`). Every defconfig of `configs/` has one (a unit
/// test checks it). The guest's machine (`uname -m`), which the manifest's
/// `arch` lines name, is the build's: `BR2_PACKAGE_RUST_TESTS_MACHINE`,
/// recorded in the image ([`ArchSpec::guest_machine`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchSpec {
    /// For `--arch`, `output/tests/<name>/`.
    pub name: String,
    /// Its row in the arch matrix (default: `name`).
    #[serde(default)]
    pub matrix_name: Option<String>,
    /// The Buildroot defconfig (`configs/`) that builds its images.
    pub defconfig: String,
    /// QEMU start -> first `KTAP version 1`, in seconds (x `--timeout-multiplier`).
    pub boot_timeout_s: f64,
    /// First `KTAP version 1` -> end sentinel, in seconds (x `--timeout-multiplier`).
    pub test_timeout_s: f64,
    /// Substrings of kernel lines that are not problems there.
    #[serde(default)]
    pub kernel_log_ignore: Vec<String>,
    /// A cell of the toolchain axis ([`crate::axis`]): the toolchain whose
    /// configuration fragment the build adds to the defconfig.
    #[serde(skip)]
    pub toolchain: Option<String>,
}

impl ArchSpec {
    /// The build's output directory name: the defconfig's, or for a cell
    /// of the toolchain axis `<defconfig>+<toolchain>` (the wrapper's
    /// `make <defconfig> TOOLCHAIN=<toolchain>`).
    pub fn output_name(&self) -> String {
        match &self.toolchain {
            Some(toolchain) => format!("{}+{toolchain}", self.defconfig),
            None => self.defconfig.clone(),
        }
    }

    /// The command that builds its images.
    pub fn build_command(&self) -> String {
        match &self.toolchain {
            Some(toolchain) => format!("make {} TOOLCHAIN={toolchain} && make", self.defconfig),
            None => format!("make {} && make", self.defconfig),
        }
    }

    /// `<output-root>/<output name>/images`.
    pub fn images_dir(&self, output_root: &Path) -> PathBuf {
        output_root.join(self.output_name()).join("images")
    }

    /// Buildroot's target directory (the root filesystem's contents).
    pub fn target_dir(&self, output_root: &Path) -> PathBuf {
        output_root.join(self.output_name()).join("target")
    }

    /// `<tree>/configs/<defconfig>`.
    pub fn defconfig_file(&self, tree: &Path) -> PathBuf {
        tree.join(CONFIGS_DIR).join(&self.defconfig)
    }

    /// The QEMU command of the board readme tagged with the defconfig.
    pub fn boot_command(&self, tree: &Path) -> Result<BootCommand, HarnessError> {
        BootCommand::find(tree, &self.defconfig)
    }

    pub fn matrix_name(&self) -> &str {
        self.matrix_name.as_deref().unwrap_or(&self.name)
    }

    /// The guest machine the manifest's `arch` lines name, as its image
    /// records it (`RUST_QEMU_MACHINE` of `/etc/rust-qemu-release`, from
    /// `BR2_PACKAGE_RUST_TESTS_MACHINE`); without an image, its name.
    pub fn guest_machine(&self, output_root: &Path) -> String {
        crate::report::ImageRelease::read(&self.target_dir(output_root))
            .and_then(|r| r.value("RUST_QEMU_MACHINE"))
            .unwrap_or_else(|| self.name.clone())
    }

    /// What the harness appends to the readme's kernel command line, then
    /// `kernel_args` (the manifest's `cmdline` words, `--kernel-arg`s).
    pub fn cmdline_extra(kernel_args: &[String]) -> String {
        let mut cmdline = CMDLINE_EXTRA.to_string();
        for arg in kernel_args {
            cmdline.push(' ');
            cmdline.push_str(arg);
        }
        cmdline
    }

    fn validate(&self) -> Result<(), String> {
        for (field, value) in [("name", &self.name), ("defconfig", &self.defconfig)] {
            if value.trim().is_empty() {
                return Err(format!("{field} is empty"));
            }
        }
        for (field, value) in [
            ("boot_timeout_s", self.boot_timeout_s),
            ("test_timeout_s", self.test_timeout_s),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{field} must be a positive number of seconds"));
            }
        }
        Ok(())
    }
}

/// A row of the arch matrix for an arch this tree does not test.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherArch {
    pub matrix_name: String,
    /// Why it is not tested, e.g. "not supported by 6.12".
    pub status: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    #[serde(default)]
    arch: Vec<ArchSpec>,
}

/// All architectures, in table order.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchTable {
    pub arches: Vec<ArchSpec>,
    /// The other rows of the arch matrix: the cells that cannot exist.
    pub others: Vec<OtherArch>,
    /// The cells of the toolchain axis ([`crate::axis`]).
    pub cells: Vec<Cell>,
    /// Each arch's boots in a LAVA lab, `<arch>@lava` ([`crate::lava_run`]):
    /// its image and machine, results of their own.
    pub labs: Vec<ArchSpec>,
}

/// The suffix of an arch's runs in a LAVA lab.
pub const LAVA_SUFFIX: &str = "@lava";

/// A cell of the toolchain axis: an arch built with another toolchain.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// `<arch>+<toolchain>`, its own output and results directories.
    pub spec: ArchSpec,
    /// make check builds it (else only make check-toolchains).
    pub check: bool,
}

impl ArchTable {
    /// Parses and checks a table; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<ArchTable, HarnessError> {
        let file: TableFile = toml::from_str(text).map_err(|e| HarnessError::ArchTable {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        let invalid = |message: String| HarnessError::ArchTable {
            origin: origin.to_string(),
            message,
        };
        for (i, arch) in file.arch.iter().enumerate() {
            arch.validate()
                .map_err(|m| invalid(format!("arch '{}': {m}", arch.name)))?;
            if file.arch[..i].iter().any(|a| a.name == arch.name) {
                return Err(invalid(format!("arch '{}' appears twice", arch.name)));
            }
        }
        Ok(ArchTable {
            arches: file.arch,
            others: Vec::new(),
            cells: Vec::new(),
            labs: Vec::new(),
        })
    }

    /// The table of `tree`: `path`'s entries (`--arches`), then each board
    /// folder's `arch.toml`, then the toolchain axis and the LAVA runs.
    pub fn load(path: Option<&Path>, tree: &Path) -> Result<ArchTable, HarnessError> {
        let table = match path {
            None => ArchTable::parse("", "no table")?,
            Some(path) => {
                let text = crate::fsx::read_to_string(path)?;
                ArchTable::parse(&text, &path.display().to_string())?
            }
        };
        let table = table.with_boards_of(tree)?;
        if table.arches.is_empty() {
            return Err(HarnessError::ArchTable {
                origin: tree.join(BOARD_DIR).display().to_string(),
                message: "no arch: no */arch.toml with an [[arch]] entry".into(),
            });
        }
        let mut table = table.with_axis_of(tree)?;
        table.labs = table
            .arches
            .iter()
            .map(|a| ArchSpec {
                name: format!("{}{LAVA_SUFFIX}", a.name),
                matrix_name: Some(a.matrix_name().to_string()),
                ..a.clone()
            })
            .collect();
        Ok(table)
    }

    /// Adds the `[[arch]]` entries of `<tree>/board/qemu/*/arch.toml`, in
    /// folder name order, but for an arch the table has already.
    pub fn with_boards_of(mut self, tree: &Path) -> Result<ArchTable, HarnessError> {
        let board = tree.join(BOARD_DIR);
        if !board.is_dir() {
            return Ok(self);
        }
        for file in board_files(&board, "arch.toml")? {
            let text = crate::fsx::read_to_string(&file)?;
            let board = ArchTable::parse(&text, &file.display().to_string())?;
            for arch in board.arches {
                if self.get(&arch.name).is_none() {
                    self.arches.push(arch);
                }
            }
        }
        Ok(self)
    }

    /// An arch, a cell of the toolchain axis or an arch's LAVA runs, by name.
    pub fn get(&self, name: &str) -> Option<&ArchSpec> {
        self.arches
            .iter()
            .chain(self.cells.iter().map(|c| &c.spec))
            .chain(&self.labs)
            .find(|a| a.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.arches
            .iter()
            .chain(self.cells.iter().map(|c| &c.spec))
            .map(|a| a.name.as_str())
            .collect()
    }

    /// The arches named, or all arches and the cells of the toolchain
    /// axis that have results in `results` (`<results>/<cell>/results.json`).
    pub fn select_reported(
        &self,
        names: &[String],
        results: &Path,
    ) -> Result<Vec<&ArchSpec>, HarnessError> {
        let mut selected = self.select(names)?;
        if names.is_empty() {
            selected.extend(
                self.cells
                    .iter()
                    .map(|c| &c.spec)
                    .filter(|s| results.join(&s.name).join("results.json").is_file()),
            );
        }
        Ok(selected)
    }

    /// The arches named (in the order given, without repeats; cells of
    /// the toolchain axis too), or all arches.
    pub fn select(&self, names: &[String]) -> Result<Vec<&ArchSpec>, HarnessError> {
        if names.is_empty() {
            return Ok(self.arches.iter().collect());
        }
        let mut selected: Vec<&ArchSpec> = Vec::new();
        for name in names {
            let arch = self.get(name).ok_or_else(|| HarnessError::UnknownArch {
                name: name.clone(),
                known: self.names().join(", "),
            })?;
            if !selected.iter().any(|a| a.name == arch.name) {
                selected.push(arch);
            }
        }
        Ok(selected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Launcher;

    fn builtin() -> ArchTable {
        ArchTable::load(None, &tree()).expect("the tree's table loads")
    }

    fn tree() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// Every arch of the table: a defconfig and a board readme with its
    /// command, which the harness extends the same way.
    #[test]
    fn every_arch_has_a_defconfig_and_a_boot_command() {
        let table = builtin();
        assert!(!table.arches.is_empty());
        for arch in &table.arches {
            assert!(arch.defconfig_file(&tree()).is_file(), "{}", arch.defconfig);
            let cmd = arch.boot_command(&tree()).expect("readme command");
            assert!(cmd.images.len() >= 2, "{}: {:?}", arch.name, cmd.images);
            let extra = ArchSpec::cmdline_extra(&["rusttest=quick".into()]);
            let args = cmd.launch_args(&extra, &[], Path::new("/scratch"));
            assert!(args.iter().all(|a| !a.contains("output/images/")));
            match cmd.launcher {
                Launcher::Qemu => {
                    assert!(cmd.program.starts_with("qemu-system-"), "{}", cmd.program);
                    let append = args.iter().position(|a| a == "-append").expect("-append");
                    let readme_cmdline = cmd.cmdline().expect("the readme sets a command line");
                    assert_eq!(args[append + 1], format!("{readme_cmdline} {extra}"));
                    for fixed in crate::board::QEMU_FIXED_ARGS {
                        assert_eq!(args.iter().filter(|a| a == fixed).count(), 1, "{fixed}");
                    }
                }
                Launcher::Uml => {
                    assert!(args.join(" ").ends_with(&extra), "{args:?}");
                    for cow in crate::board::uml_cow_files(&args) {
                        assert!(cow.starts_with("/scratch/"), "{cow}");
                    }
                }
            }
            assert_eq!(
                arch.images_dir(Path::new("output")),
                Path::new("output").join(&arch.defconfig).join("images")
            );
        }
    }

    #[test]
    fn qemu_packages_of_the_tree() {
        let packages = qemu_packages(&tree());
        assert!(
            packages.iter().any(|p| p == "qemu-system-x86"),
            "{packages:?}"
        );
        let hint = qemu_hint("qemu-system-x", &packages);
        assert!(hint.starts_with("install QEMU: make setup, or apt-get install qemu-system-"));
        assert_eq!(qemu_hint("q", &[]), "install QEMU's q");
    }

    #[test]
    fn selection() {
        let table = builtin();
        let names = table.names();
        let all = table.select(&[]).expect("all");
        assert_eq!(all.len(), table.arches.len(), "all arches, not the cells");
        let cell = table.cells.first().expect("a cell").spec.name.clone();
        assert_eq!(table.select(&[cell]).expect("a cell by name").len(), 1);
        let last = names[names.len() - 1].to_string();
        let some = table.select(&[last.clone(), last]).expect("one");
        assert_eq!(some.len(), 1);
        let err = table.select(&["vax".into()]).expect_err("unknown");
        assert!(err.to_string().contains(&names.join(", ")), "{err}");
    }

    const TABLE: &str = "\
[[arch]]
name = \"a\"
defconfig = \"a_defconfig\"
boot_timeout_s = 120
test_timeout_s = 60

[[arch]]
name = \"b\"
matrix_name = \"b (bee)\"
defconfig = \"b_defconfig\"
boot_timeout_s = 1
test_timeout_s = 1
";

    #[test]
    fn parses_a_table() {
        let table = ArchTable::parse(TABLE, "test").expect("parses");
        assert_eq!(table.names(), ["a", "b"]);
        assert_eq!(table.arches[0].matrix_name(), "a");
        assert_eq!(table.arches[1].matrix_name(), "b (bee)");
        assert_eq!(
            table.arches[0].defconfig_file(Path::new("/t")),
            Path::new("/t/configs/a_defconfig")
        );
        assert_eq!(
            table.arches[0].target_dir(Path::new("/o")),
            Path::new("/o/a_defconfig/target")
        );
    }

    #[test]
    fn the_guest_machine_is_the_images() {
        let table = ArchTable::parse(TABLE, "test").expect("parses");
        let out = std::env::temp_dir().join(format!("rust-qemu-test-mach-{}", std::process::id()));
        let etc = out.join("b_defconfig/target/etc");
        std::fs::create_dir_all(&etc).expect("mkdir");
        std::fs::write(
            etc.join("rust-qemu-release"),
            "RUST_QEMU_MACHINE=\"armv7l\"\n",
        )
        .expect("write");
        assert_eq!(table.arches[1].guest_machine(&out), "armv7l");
        assert_eq!(
            table.arches[0].guest_machine(&out),
            "a",
            "no image: its name"
        );
        std::fs::remove_dir_all(&out).expect("cleanup");
    }

    #[test]
    fn a_tree_without_arches_is_refused() {
        let tree = std::env::temp_dir().join(format!("rust-qemu-test-none-{}", std::process::id()));
        std::fs::create_dir_all(&tree).expect("mkdir");
        let err = ArchTable::load(None, &tree).expect_err("no arch");
        std::fs::remove_dir_all(&tree).expect("cleanup");
        assert!(err.to_string().contains("no arch"), "{err}");
    }

    #[test]
    fn the_tree_defconfigs_all_have_entries() {
        // Every defconfig of this tree is an arch of its board's arch.toml.
        let table = builtin();
        let configs = std::fs::read_dir(tree().join(CONFIGS_DIR)).expect("configs/");
        for name in configs.filter_map(Result::ok).map(|e| e.file_name()) {
            let name = name.to_string_lossy();
            if name.ends_with("_defconfig") {
                assert!(
                    table.arches.iter().any(|a| a.defconfig == name),
                    "{name}: no [[arch]] entry in board/qemu/*/arch.toml"
                );
            }
        }
        assert!(table.names().contains(&"x86_64-kasan"));
    }

    #[test]
    fn invalid_tables_are_rejected() {
        for (bad, why) in [
            (
                TABLE.replace("boot_timeout_s = 120", "boot_timeout_s = 0"),
                "boot_timeout_s",
            ),
            (TABLE.replace("name = \"b\"", "name = \"a\""), "twice"),
            (
                TABLE.replace("defconfig = \"a_defconfig\"", "defconfig = \"\""),
                "defconfig is empty",
            ),
            (
                TABLE.replace(
                    "test_timeout_s = 60",
                    "unknown_field = 1\ntest_timeout_s = 60",
                ),
                "unknown",
            ),
        ] {
            let err = ArchTable::parse(&bad, "test").expect_err(why);
            assert!(err.to_string().contains(why), "{why}: {err}");
        }
    }
}
