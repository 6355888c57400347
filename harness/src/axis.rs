//! The toolchain axis: arches built again with another toolchain than
//! their defconfig's, as cells `<arch>+<toolchain>`
//! (`support/toolchains/axis.toml`, which says what each field is). A
//! cell boots like its arch, from its own output directory
//! (`output/<defconfig>+<toolchain>`); the cells that cannot exist are
//! rows of the arch matrix with the reason.

use std::path::Path;

use serde::Deserialize;

use crate::arch_table::{ArchSpec, ArchTable, Cell, OtherArch};
use crate::error::HarnessError;

/// The axis, relative to the tree.
pub const AXIS_FILE: &str = "support/toolchains/axis.toml";

/// A toolchain's Buildroot configuration fragment, relative to the tree.
pub fn fragment(toolchain: &str) -> String {
    format!("support/toolchains/{toolchain}.config")
}

/// A cell's name, for `--arch` and `output/tests/<name>/`.
pub fn cell_name(arch: &str, toolchain: &str) -> String {
    format!("{arch}+{toolchain}")
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CellEntry {
    arch: String,
    toolchain: String,
    #[serde(default)]
    check: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoCellEntry {
    arch: String,
    toolchain: String,
    why: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisFile {
    #[serde(default)]
    cell: Vec<CellEntry>,
    #[serde(default)]
    no_cell: Vec<NoCellEntry>,
}

impl ArchTable {
    /// Adds the cells of `<tree>/support/toolchains/axis.toml` (none
    /// without the file), each checked: its arch is in the table, its
    /// toolchain has a fragment, no cell twice. The cells that cannot
    /// exist become other rows of the matrix.
    pub fn with_axis_of(mut self, tree: &Path) -> Result<ArchTable, HarnessError> {
        let path = tree.join(AXIS_FILE);
        if !path.is_file() {
            return Ok(self);
        }
        let text = crate::fsx::read_to_string(&path)?;
        let invalid = |message: String| HarnessError::ArchTable {
            origin: path.display().to_string(),
            message,
        };
        let file: AxisFile = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        for entry in file.cell {
            let name = cell_name(&entry.arch, &entry.toolchain);
            let arch = self
                .arches
                .iter()
                .find(|a| a.name == entry.arch)
                .ok_or_else(|| invalid(format!("cell '{name}': no arch '{}'", entry.arch)))?;
            if !tree.join(fragment(&entry.toolchain)).is_file() {
                return Err(invalid(format!(
                    "cell '{name}': no {}",
                    fragment(&entry.toolchain)
                )));
            }
            if self.get(&name).is_some() {
                return Err(invalid(format!("cell '{name}' appears twice")));
            }
            let spec = cell_spec(arch, &entry.toolchain);
            self.cells.push(Cell {
                spec,
                check: entry.check,
            });
        }
        self.others
            .extend(file.no_cell.into_iter().map(|n| OtherArch {
                matrix_name: cell_name(&n.arch, &n.toolchain),
                status: format!("cannot exist: {}", n.why),
            }));
        Ok(self)
    }
}

/// The arch `arch` built with `toolchain`: its defconfig and
/// timeouts, its own name and output.
fn cell_spec(arch: &ArchSpec, toolchain: &str) -> ArchSpec {
    ArchSpec {
        name: cell_name(&arch.name, toolchain),
        matrix_name: Some(cell_name(arch.matrix_name(), toolchain)),
        toolchain: Some(toolchain.to_string()),
        ..arch.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tree() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn the_trees_cells_are_its_arches_with_a_fragment() {
        let table = ArchTable::load(None, &tree()).expect("the tree's table loads");
        assert!(
            table.cells.iter().any(|c| c.check),
            "make check builds a cell"
        );
        for cell in &table.cells {
            let toolchain = cell.spec.toolchain.as_deref().expect("a toolchain");
            let arch = cell.spec.name.strip_suffix(&format!("+{toolchain}"));
            let arch = table
                .get(arch.expect("<arch>+<toolchain>"))
                .expect("its arch");
            assert_eq!(cell.spec.defconfig, arch.defconfig);
            assert_eq!(
                cell.spec.output_name(),
                format!("{}+{toolchain}", arch.defconfig)
            );
            assert!(tree().join(fragment(toolchain)).is_file());
        }
        assert!(table
            .others
            .iter()
            .any(|o| o.status.starts_with("cannot exist: ")));
    }

    fn table_with_axis(axis: &str) -> Result<ArchTable, HarnessError> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("axis-test-{}-{n}", std::process::id()));
        let toolchains = dir.join("support/toolchains");
        std::fs::create_dir_all(&toolchains).expect("temporary tree");
        std::fs::write(toolchains.join("axis.toml"), axis).expect("axis");
        std::fs::write(
            toolchains.join("llvm.config"),
            "BR2_LINUX_KERNEL_RUST_LLVM=y\n",
        )
        .expect("fragment");
        let table = ArchTable::parse(
            "[[arch]]\nname = \"x86_64\"\ndefconfig = \"d\"\n\
             boot_timeout_s = 1\ntest_timeout_s = 1\n",
            "test",
        )
        .expect("table");
        let result = table.with_axis_of(&dir);
        std::fs::remove_dir_all(&dir).expect("clean up");
        result
    }

    #[test]
    fn refuses_unknown_arches_toolchains_and_repeats() {
        let cell = |arch: &str, toolchain: &str| {
            format!("[[cell]]\narch = \"{arch}\"\ntoolchain = \"{toolchain}\"\n")
        };
        let ok = table_with_axis(&cell("x86_64", "llvm")).expect("a valid axis");
        assert_eq!(
            ok.get("x86_64+llvm").map(ArchSpec::output_name).as_deref(),
            Some("d+llvm")
        );
        for (axis, error) in [
            (cell("s390x", "llvm"), "no arch 's390x'"),
            (cell("x86_64", "gcc"), "no support/toolchains/gcc.config"),
            (cell("x86_64", "llvm").repeat(2), "appears twice"),
            ("[[cell]]\narch = \"x86_64\"\n".to_string(), "missing field"),
        ] {
            let message = table_with_axis(&axis).expect_err(&axis).to_string();
            assert!(message.contains(error), "{axis}: {message}");
        }
    }
}
