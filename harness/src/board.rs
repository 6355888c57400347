//! An arch's boot command, read where the board documents it: the line of
//! `board/qemu/*/readme.txt` tagged `# <defconfig>`, from which
//! `board/qemu/post-image.sh` writes `images/start-qemu.sh`. It runs QEMU
//! (`qemu-system-<arch>`), or a User-Mode Linux kernel of `images/` as a
//! program of the host.

use std::path::{Path, PathBuf};

use crate::error::HarnessError;

/// The board readmes, relative to the tree.
pub const BOARD_DIR: &str = "board/qemu";
/// Where the readme's command takes the images from; QEMU runs in that
/// directory, so the harness drops this prefix, as post-image.sh does.
const IMAGES_PREFIX: &str = "output/images/";

/// Options the harness adds to QEMU's command line, after the readme's,
/// unless the readme has them: no display (the serial console on standard
/// I/O), QEMU exits when the guest reboots or panics, the root filesystem
/// image is never written.
pub const QEMU_FIXED_ARGS: &[&str] = &["-nographic", "-no-reboot", "-snapshot"];

/// What a boot command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    /// `qemu-system-<arch>`: the kernel command line is inside `-append`.
    Qemu,
    /// A User-Mode Linux kernel of `images/`: its arguments are the kernel
    /// command line.
    Uml,
}

/// A boot command of a board readme, to run in the images directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootCommand {
    /// The readme it comes from.
    pub readme: PathBuf,
    /// QEMU or UML.
    pub launcher: Launcher,
    /// `qemu-system-<arch>`, or the UML kernel's file in `images/`.
    pub program: String,
    /// Its arguments, with `output/images/` dropped.
    pub args: Vec<String>,
    /// The files of `images/` it names (kernel, root filesystem, DTB...).
    pub images: Vec<String>,
}

impl BootCommand {
    /// The command tagged `# <defconfig>` in `<tree>/board/qemu/*/readme.txt`
    /// (exactly one line of one readme).
    pub fn find(tree: &Path, defconfig: &str) -> Result<BootCommand, HarnessError> {
        let board = tree.join(BOARD_DIR);
        let error = |message: String| HarnessError::BoardCommand {
            defconfig: defconfig.to_string(),
            message,
        };
        let mut found: Vec<(PathBuf, String)> = Vec::new();
        for readme in board_files(&board, "readme.txt")? {
            let text = crate::fsx::read_to_string(&readme)?;
            found.extend(
                text.lines()
                    .filter_map(|line| tagged_command(line, defconfig))
                    .map(|cmd| (readme.clone(), cmd.to_string())),
            );
        }
        match found.as_slice() {
            [(readme, line)] => BootCommand::parse(line, readme)
                .map_err(|m| error(format!("{}: {m}", readme.display()))),
            [] => Err(error(format!(
                "no line `qemu-system-... # {defconfig}` (or `output/images/<uml kernel> ... # \
                 {defconfig}`) in {}/*/readme.txt",
                board.display()
            ))),
            _ => Err(error(format!(
                "{} lines tagged `# {defconfig}` in {}/*/readme.txt, not one",
                found.len(),
                board.display()
            ))),
        }
    }

    /// A readme command (without its tag); `readme` names it.
    pub fn parse(line: &str, readme: &Path) -> Result<BootCommand, String> {
        let mut words = split_words(line)?.into_iter();
        let first = words.next().ok_or("empty command")?;
        let (launcher, program) = match first.strip_prefix(IMAGES_PREFIX) {
            Some(kernel) => (Launcher::Uml, kernel.to_string()),
            None => (Launcher::Qemu, first),
        };
        let mut images: Vec<String> = match launcher {
            Launcher::Uml => vec![program.clone()],
            Launcher::Qemu => Vec::new(),
        };
        let args: Vec<String> = words
            .map(|word| {
                // A UML copy-on-write file is made by the boot: only its backing file is needed.
                images.extend(match uml_cow(&word) {
                    Some((_, _, backing)) => image_files(backing),
                    None => image_files(&word),
                });
                word.replace(IMAGES_PREFIX, "")
            })
            .collect();
        let command = BootCommand {
            readme: readme.to_path_buf(),
            launcher,
            program,
            args,
            images,
        };
        if launcher == Launcher::Uml {
            return Ok(command);
        }
        if command.machine().is_none() {
            return Err("the command has no -M <machine>".into());
        }
        if command.value_of(&["-kernel"]).is_none() {
            return Err("the command has no -kernel <image>".into());
        }
        Ok(command)
    }

    fn value_of(&self, options: &[&str]) -> Option<&str> {
        let at = self
            .args
            .iter()
            .position(|a| options.contains(&a.as_str()))?;
        self.args.get(at + 1).map(String::as_str)
    }

    /// The machine given with `-M`.
    pub fn machine(&self) -> Option<&str> {
        self.value_of(&["-M", "-machine"])
    }

    /// Where the kernel runs, for the arch matrix: QEMU's machine, or UML.
    pub fn platform(&self) -> Option<String> {
        match self.launcher {
            Launcher::Qemu => self.machine().map(str::to_string),
            Launcher::Uml => Some("none (UML: a host process)".to_string()),
        }
    }

    /// The kernel command line given with `-append`.
    pub fn cmdline(&self) -> Option<&str> {
        self.value_of(&["-append"])
    }

    /// The arguments as the harness runs the command. QEMU: the readme's,
    /// with `extra_cmdline` appended to the kernel command line, then those
    /// of [`QEMU_FIXED_ARGS`] it lacks, then `qemu_extra`. UML: the readme's
    /// with each copy-on-write file `ubdN=<cow>,<image>` moved to `scratch`
    /// (so no boot sees another's changes, as QEMU's `-snapshot`), then
    /// `extra_cmdline`'s words and `qemu_extra`.
    pub fn launch_args(
        &self,
        extra_cmdline: &str,
        qemu_extra: &[String],
        scratch: &Path,
    ) -> Vec<String> {
        if self.launcher == Launcher::Uml {
            let mut args: Vec<String> = self.args.iter().map(|a| uml_cow_in(a, scratch)).collect();
            args.extend(extra_cmdline.split_whitespace().map(str::to_string));
            args.extend(qemu_extra.iter().cloned());
            return args;
        }
        let mut args = self.args.clone();
        match args.iter().position(|a| a == "-append") {
            Some(at) if at + 1 < args.len() => {
                let cmdline = &mut args[at + 1];
                cmdline.push(' ');
                cmdline.push_str(extra_cmdline);
            }
            _ => args.extend(["-append".to_string(), extra_cmdline.to_string()]),
        }
        for fixed in QEMU_FIXED_ARGS {
            if !args.iter().any(|a| a == fixed) {
                args.push(fixed.to_string());
            }
        }
        args.extend(qemu_extra.iter().cloned());
        args
    }
}

/// The copy-on-write files a UML command writes (`ubdN=<cow>,<image>`).
pub fn uml_cow_files(args: &[String]) -> Vec<&str> {
    args.iter()
        .filter_map(|a| uml_cow(a).map(|(_, cow, _)| cow))
        .collect()
}

/// `ubdN[flags]=<cow>,<image>` split into its option, COW file and image.
fn uml_cow(arg: &str) -> Option<(&str, &str, &str)> {
    let (option, value) = arg.split_once('=')?;
    let (cow, image) = value.split_once(',')?;
    option.starts_with("ubd").then_some((option, cow, image))
}

/// `arg` with its UML copy-on-write file moved into `dir`.
fn uml_cow_in(arg: &str, dir: &Path) -> String {
    match uml_cow(arg) {
        Some((option, cow, image)) => {
            let name = Path::new(cow).file_name().unwrap_or(cow.as_ref());
            format!("{option}={},{image}", dir.join(name).display())
        }
        None => arg.to_string(),
    }
}

/// `<board>/*/<name>` (each board folder's file of that name), sorted.
pub fn board_files(board: &Path, name: &str) -> Result<Vec<PathBuf>, HarnessError> {
    let entries = crate::fsx::read_dir(board)?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path().join(name))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    Ok(found)
}

/// The command of a readme line `qemu-system-... # <defconfig>` or
/// `output/images/<UML kernel> ... # <defconfig>`.
fn tagged_command<'a>(line: &'a str, defconfig: &str) -> Option<&'a str> {
    let command = line
        .trim_end()
        .strip_suffix(defconfig)?
        .strip_suffix(" # ")?
        .trim_start();
    (command.starts_with("qemu-system-") || command.starts_with(IMAGES_PREFIX)).then_some(command)
}

/// The `images/` files a word names (`output/images/<file>` up to a `,`).
fn image_files(word: &str) -> Vec<String> {
    word.split(IMAGES_PREFIX)
        .skip(1)
        .filter_map(|rest| rest.split(',').next())
        .filter(|file| !file.is_empty())
        .map(str::to_string)
        .collect()
}

/// Splits a command line into words as the shell does for plain words,
/// `'...'` and `"..."` (no expansions).
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(word.take()),
            '\'' | '"' => {
                let quoted = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => quoted.push(other),
                        None => return Err(format!("unterminated {c} in the command")),
                    }
                }
            }
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str = "qemu-system-x86_64 -M pc -cpu max -m 512 -kernel output/images/bzImage \
        -drive file=output/images/rootfs.ext4,if=virtio,format=raw \
        -append \"root=/dev/vda rw console=ttyS0\" -nographic";

    #[test]
    fn words() {
        assert_eq!(
            split_words("a  'b c' \"d 'e'\" f\"g h\"").expect("words"),
            ["a", "b c", "d 'e'", "fg h"]
        );
        assert!(split_words("a \"b").is_err());
    }

    #[test]
    fn tags() {
        let line = format!("  {X86} # qemu_x86_64_rust_defconfig");
        assert_eq!(
            tagged_command(&line, "qemu_x86_64_rust_defconfig"),
            Some(X86)
        );
        assert_eq!(tagged_command(&line, "x86_64_rust_defconfig"), None);
        assert_eq!(
            tagged_command(
                "see # qemu_x86_64_rust_defconfig",
                "qemu_x86_64_rust_defconfig"
            ),
            None
        );
    }

    #[test]
    fn parses_a_readme_command() {
        let cmd = BootCommand::parse(X86, Path::new("readme.txt")).expect("parses");
        assert_eq!(cmd.program, "qemu-system-x86_64");
        assert_eq!(cmd.machine(), Some("pc"));
        assert_eq!(cmd.cmdline(), Some("root=/dev/vda rw console=ttyS0"));
        assert_eq!(cmd.images, ["bzImage", "rootfs.ext4"]);
        assert!(cmd.args.iter().all(|a| !a.contains("output/images")));
        for (bad, why) in [
            ("qemu-system-x86_64 -kernel Image", "-M"),
            ("qemu-system-x86_64 -M pc", "-kernel"),
            ("qemu-system-x86_64 -M pc -append \"x", "unterminated"),
        ] {
            let err = BootCommand::parse(bad, Path::new("r")).expect_err(why);
            assert!(err.contains(why), "{why}: {err}");
        }
    }

    #[test]
    fn harness_additions() {
        let cmd = BootCommand::parse(X86, Path::new("readme.txt")).expect("parses");
        let args = cmd.launch_args("rusttest", &["-s".to_string()], Path::new("/s"));
        assert_eq!(
            args.join(" "),
            "-M pc -cpu max -m 512 -kernel bzImage \
             -drive file=rootfs.ext4,if=virtio,format=raw \
             -append root=/dev/vda rw console=ttyS0 rusttest -nographic -no-reboot -snapshot -s"
        );
        let bare = BootCommand::parse(
            "qemu-system-aarch64 -M virt -kernel output/images/Image",
            Path::new("r"),
        )
        .expect("parses");
        assert_eq!(
            bare.launch_args("rusttest", &[], Path::new("/s")),
            [
                "-M",
                "virt",
                "-kernel",
                "Image",
                "-append",
                "rusttest",
                "-nographic",
                "-no-reboot",
                "-snapshot"
            ]
        );
    }

    #[test]
    fn uml_command() {
        let line = "output/images/linux-um mem=512M \
            ubd0=output/images/rootfs.cow,output/images/rootfs.ext4 root=/dev/ubda con=null \
            dtb=output/images/rust-qemu.dtb";
        let tagged = format!("  {line} # um_defconfig");
        assert_eq!(tagged_command(&tagged, "um_defconfig"), Some(line));
        let cmd = BootCommand::parse(line, Path::new("readme.txt")).expect("parses");
        assert_eq!(cmd.launcher, Launcher::Uml);
        assert_eq!(cmd.program, "linux-um");
        assert_eq!(cmd.images, ["linux-um", "rootfs.ext4", "rust-qemu.dtb"]);
        assert_eq!(
            cmd.platform().as_deref(),
            Some("none (UML: a host process)")
        );
        let args = cmd.launch_args("rusttest panic=-1", &["x=1".into()], Path::new("/s"));
        assert_eq!(
            args.join(" "),
            "mem=512M ubd0=/s/rootfs.cow,rootfs.ext4 root=/dev/ubda con=null dtb=rust-qemu.dtb \
             rusttest panic=-1 x=1"
        );
        assert_eq!(uml_cow_files(&cmd.args), ["rootfs.cow"]);
    }

    #[test]
    fn finds_the_tagged_readme() {
        let tree =
            std::env::temp_dir().join(format!("rust-qemu-test-board-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tree);
        for (arch, text) in [
            ("a", format!("Run:\n  {X86} # one_defconfig\n")),
            (
                "b",
                format!("{X86} # two_defconfig\n{X86} # two_defconfig\n"),
            ),
        ] {
            let dir = tree.join(BOARD_DIR).join(arch);
            std::fs::create_dir_all(&dir).expect("dir");
            std::fs::write(dir.join("readme.txt"), text).expect("readme");
        }
        let cmd = BootCommand::find(&tree, "one_defconfig").expect("found");
        assert!(cmd.readme.ends_with("a/readme.txt"));
        for (defconfig, why) in [("two_defconfig", "2 lines"), ("no_defconfig", "no line")] {
            let err = BootCommand::find(&tree, defconfig).expect_err(why);
            assert!(err.to_string().contains(why), "{err}");
        }
        let _ = std::fs::remove_dir_all(&tree);
    }
}
