//! The per-architecture table (`harness/arches.toml`): how to boot each
//! arch's image in QEMU.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::HarnessError;

/// The table built into the binary.
pub const BUILTIN_TABLE: &str = include_str!("../arches.toml");

/// Arguments the harness always adds to QEMU's command line.
pub const QEMU_FIXED_ARGS: &[&str] = &["-nographic", "-no-reboot", "-snapshot"];
/// Words the harness appends to the kernel command line. Expedited RCU
/// grace periods: every module unload waits for several (more with
/// lockdep), which made the 100x load/unload loops ~6x slower.
pub const CMDLINE_EXTRA: &str = "rusttest panic=-1 printk.devkmsg=on rcupdate.rcu_expedited=1";
/// Module parameters for the built-in copy of the module parameters
/// sample that takes its values from the kernel command line (the
/// manifest's `rust_module_parameters_builtin_custom` test checks them).
pub const CMDLINE_BUILTIN_PARAMS: &str = concat!(
    "rust_module_parameters_builtin_custom.my_bool=n ",
    "rust_module_parameters_builtin_custom.my_i32=345543 ",
    "rust_module_parameters_builtin_custom.my_str=\u{1f980}mod ",
    "rust_module_parameters_builtin_custom.my_usize=3 ",
    "rust_module_parameters_builtin_custom.my_array=1,2,3"
);

/// One architecture.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchSpec {
    pub name: String,
    pub defconfig: String,
    pub qemu: String,
    pub qemu_packages: Vec<String>,
    pub machine_args: Vec<String>,
    pub kernel_image: String,
    pub rootfs: String,
    pub drive_args: Vec<String>,
    pub cmdline: String,
    pub boot_timeout_s: f64,
    pub test_timeout_s: f64,
    #[serde(default)]
    pub kernel_log_ignore: Vec<String>,
}

impl ArchSpec {
    /// The machine given with `-M`.
    pub fn machine(&self) -> Option<&str> {
        let at = self
            .machine_args
            .iter()
            .position(|a| a == "-M" || a == "-machine")?;
        self.machine_args.get(at + 1).map(String::as_str)
    }

    /// `<output-root>/<defconfig>/images`.
    pub fn images_dir(&self, output_root: &Path) -> PathBuf {
        output_root.join(&self.defconfig).join("images")
    }

    /// The kernel `.config` of the build:
    /// `<output-root>/<defconfig>/build/linux-custom/.config`.
    pub fn kernel_config(&self, output_root: &Path) -> PathBuf {
        output_root
            .join(&self.defconfig)
            .join("build")
            .join("linux-custom")
            .join(".config")
    }

    /// The full kernel command line the harness boots with, plus any
    /// extra kernel arguments.
    pub fn full_cmdline(&self, kernel_args: &[String]) -> String {
        let mut cmdline = format!("{} {CMDLINE_EXTRA} {CMDLINE_BUILTIN_PARAMS}", self.cmdline);
        for arg in kernel_args {
            cmdline.push(' ');
            cmdline.push_str(arg);
        }
        cmdline
    }

    /// QEMU's arguments (without the program), to run in the images
    /// directory.
    pub fn qemu_args(&self, extra: &[String], kernel_args: &[String]) -> Vec<String> {
        let mut args = self.machine_args.clone();
        args.push("-kernel".into());
        args.push(self.kernel_image.clone());
        args.extend(self.drive_args.iter().cloned());
        args.push("-append".into());
        args.push(self.full_cmdline(kernel_args));
        args.extend(QEMU_FIXED_ARGS.iter().map(|a| a.to_string()));
        args.extend(extra.iter().cloned());
        args
    }

    /// "install the Debian package X" (or "X (or Y)").
    pub fn package_hint(&self) -> String {
        match self.qemu_packages.as_slice() {
            [] => format!("install QEMU's {}", self.qemu),
            [one] => format!("install the Debian package {one}"),
            [first, rest @ ..] => format!(
                "install the Debian package {first} (or {}, where QEMU is split per architecture)",
                rest.join(", ")
            ),
        }
    }

    fn validate(&self) -> Result<(), String> {
        let fields = [
            ("name", &self.name),
            ("defconfig", &self.defconfig),
            ("qemu", &self.qemu),
            ("kernel_image", &self.kernel_image),
            ("rootfs", &self.rootfs),
            ("cmdline", &self.cmdline),
        ];
        for (field, value) in fields {
            if value.trim().is_empty() {
                return Err(format!("{field} is empty"));
            }
        }
        if self.machine().is_none() {
            return Err("machine_args has no -M <machine>".into());
        }
        let file = format!("file={}", self.rootfs);
        if !self.drive_args.iter().any(|a| a.contains(&file)) {
            return Err(format!("drive_args do not attach {file}"));
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    arch: Vec<ArchSpec>,
}

/// All architectures, in table order.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchTable {
    pub arches: Vec<ArchSpec>,
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
        if file.arch.is_empty() {
            return Err(invalid("no [[arch]] entries".into()));
        }
        for (i, arch) in file.arch.iter().enumerate() {
            arch.validate()
                .map_err(|m| invalid(format!("arch '{}': {m}", arch.name)))?;
            if file.arch[..i].iter().any(|a| a.name == arch.name) {
                return Err(invalid(format!("arch '{}' appears twice", arch.name)));
            }
        }
        Ok(ArchTable { arches: file.arch })
    }

    /// The table built into the binary.
    pub fn builtin() -> Result<ArchTable, HarnessError> {
        ArchTable::parse(BUILTIN_TABLE, "built-in arches.toml")
    }

    /// The table in `path`, or the built-in one.
    pub fn load(path: Option<&Path>) -> Result<ArchTable, HarnessError> {
        match path {
            None => ArchTable::builtin(),
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| HarnessError::Read {
                    path: path.to_path_buf(),
                    source,
                })?;
                ArchTable::parse(&text, &path.display().to_string())
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&ArchSpec> {
        self.arches.iter().find(|a| a.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.arches.iter().map(|a| a.name.as_str()).collect()
    }

    /// The arches named (in the order given, without repeats), or all.
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

    fn builtin() -> ArchTable {
        ArchTable::builtin().expect("built-in table parses")
    }

    #[test]
    fn builtin_table_has_both_arches() {
        let table = builtin();
        assert_eq!(table.names(), ["x86_64", "riscv64"]);
        let x86 = table.get("x86_64").expect("x86_64");
        assert_eq!(x86.defconfig, "qemu_x86_64_rust_defconfig");
        assert_eq!(x86.qemu, "qemu-system-x86_64");
        assert_eq!(x86.machine(), Some("pc"));
        assert_eq!(x86.kernel_image, "bzImage");
        assert_eq!(x86.boot_timeout_s, 120.0);
        assert_eq!(x86.test_timeout_s, 180.0);
        let rv = table.get("riscv64").expect("riscv64");
        assert_eq!(rv.defconfig, "qemu_riscv64_rust_defconfig");
        assert_eq!(rv.machine(), Some("virt"));
        assert_eq!(rv.kernel_image, "Image");
        assert_eq!(rv.boot_timeout_s, 240.0);
        assert_eq!(rv.test_timeout_s, 300.0);
        assert!(rv.package_hint().contains("qemu-system-misc"));
        assert_eq!(
            x86.package_hint(),
            "install the Debian package qemu-system-x86"
        );
    }

    #[test]
    fn qemu_command_line() {
        let table = builtin();
        let x86 = table.get("x86_64").expect("x86_64");
        let args = x86.qemu_args(&["-s".to_string()], &[]);
        assert_eq!(
            args.join(" "),
            format!(
                "-M pc -cpu max -m 512 -smp 2 -kernel bzImage \
             -drive file=rootfs.ext4,if=virtio,format=raw \
             -append root=/dev/vda rw rootwait console=ttyS0 rusttest panic=-1 printk.devkmsg=on \
             rcupdate.rcu_expedited=1 \
             {CMDLINE_BUILTIN_PARAMS} -nographic -no-reboot -snapshot -s"
            )
        );
        let rv = table.get("riscv64").expect("riscv64");
        let args = rv.qemu_args(&[], &["rusttest=quick".to_string()]);
        let append = args.iter().position(|a| a == "-append").expect("-append");
        assert_eq!(
            args[append + 1],
            format!(
                "root=/dev/vda rw rootwait console=ttyS0 rusttest panic=-1 printk.devkmsg=on rcupdate.rcu_expedited=1 \
                 {CMDLINE_BUILTIN_PARAMS} rusttest=quick"
            )
        );
        assert!(CMDLINE_BUILTIN_PARAMS.contains("my_str=\u{1f980}mod"));
        assert!(args.ends_with(&["-nographic".into(), "-no-reboot".into(), "-snapshot".into()]));
    }

    #[test]
    fn paths() {
        let table = builtin();
        let x86 = table.get("x86_64").expect("x86_64");
        assert_eq!(
            x86.images_dir(Path::new("output")),
            Path::new("output/qemu_x86_64_rust_defconfig/images")
        );
        assert_eq!(
            x86.kernel_config(Path::new("/o")),
            Path::new("/o/qemu_x86_64_rust_defconfig/build/linux-custom/.config")
        );
    }

    #[test]
    fn selection() {
        let table = builtin();
        let all = table.select(&[]).expect("all");
        assert_eq!(all.len(), 2);
        let some = table
            .select(&["riscv64".into(), "riscv64".into()])
            .expect("riscv64");
        assert_eq!(some.len(), 1);
        let err = table.select(&["arm64".into()]).expect_err("unknown");
        assert!(err.to_string().contains("x86_64, riscv64"), "{err}");
    }

    #[test]
    fn invalid_tables_are_rejected() {
        let good = BUILTIN_TABLE;
        for (bad, why) in [
            (good.replace("\"-M\", \"pc\", ", ""), "-M"),
            (
                good.replace("boot_timeout_s = 120", "boot_timeout_s = 0"),
                "boot_timeout_s",
            ),
            (
                good.replace("name = \"riscv64\"", "name = \"x86_64\""),
                "twice",
            ),
            (
                good.replace("file=rootfs.ext4,if=virtio", "file=other.img,if=virtio"),
                "drive_args",
            ),
            (
                good.replace("cmdline = ", "unknown_field = 1\ncmdline = "),
                "unknown",
            ),
            ("arch = []".to_string(), "no [[arch]]"),
        ] {
            let err = ArchTable::parse(&bad, "test").expect_err(why);
            assert!(err.to_string().contains(why), "{why}: {err}");
        }
    }

    /// The table must not drift from the command that the board documents
    /// (board/qemu/<arch>/readme.txt, the line tagged `# <defconfig>`, from
    /// which post-image.sh makes start-qemu.sh).
    #[test]
    fn table_matches_board_readmes() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("harness/ has a parent");
        for arch in builtin().arches {
            let readme = repo.join("board/qemu").join(&arch.name).join("readme.txt");
            let Ok(text) = std::fs::read_to_string(&readme) else {
                println!(
                    "note: {} does not exist yet; not checking the {} entry",
                    readme.display(),
                    arch.name
                );
                continue;
            };
            let machine = arch.machine().expect("machine");
            assert!(
                text.contains(&arch.qemu),
                "{}: no {}",
                readme.display(),
                arch.qemu
            );
            assert!(
                text.contains(&format!("-M {machine}")),
                "{}: no -M {machine}",
                readme.display()
            );
            let tag = format!("# {}", arch.defconfig);
            let Some(line) = text.lines().find(|l| l.trim_end().ends_with(&tag)) else {
                println!("note: {} has no line tagged '{tag}'", readme.display());
                continue;
            };
            let line = line.replace("output/images/", "");
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(words.first(), Some(&arch.qemu.as_str()), "{line}");
            let has_sequence = |seq: &[String]| {
                seq.is_empty()
                    || words
                        .windows(seq.len())
                        .any(|w| w.iter().zip(seq).all(|(a, b)| *a == b.as_str()))
            };
            assert!(
                has_sequence(&arch.machine_args),
                "machine args differ: {line}"
            );
            assert!(has_sequence(&arch.drive_args), "drive args differ: {line}");
            assert!(
                has_sequence(&["-kernel".to_string(), arch.kernel_image.clone()]),
                "kernel differs: {line}"
            );
            assert!(
                line.contains(&format!("-append \"{}\"", arch.cmdline)),
                "command line differs: {line}"
            );
        }
    }
}
