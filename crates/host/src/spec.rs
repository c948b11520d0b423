//! Engine specs: which program to run as an engine, with which arguments
//! and options, in the command-line form that `match` and `gui` share
//! (`cmd=PATH[,name=NAME][,tc=TC][,arg=ARG...][,option.NAME=VALUE...]`
//! or a bare path).

use crate::Error;
use crate::clock::TimeControl;
use std::path::{Path, PathBuf};

/// One engine: a program, its arguments and the options to set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name shown in reports and PDN tags.
    pub name: String,
    /// The program to run.
    pub cmd: PathBuf,
    /// Its command-line arguments.
    pub args: Vec<String>,
    /// `setoption` pairs, sent in the order given.
    pub options: Vec<(String, String)>,
    /// Its own time control in a clock match (time odds); `None` plays
    /// the match's.
    pub tc: Option<TimeControl>,
}

impl EngineSpec {
    /// The engine's process as both clients start it: its arguments, the
    /// protocol on stdin and stdout, stderr dropped (an engine that fills
    /// it unread would block).
    pub fn command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.cmd);
        command
            .args(&self.args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        command
    }

    /// Why the engine's process did not start, named.
    pub(crate) fn start_failed(&self, e: std::io::Error) -> Error {
        Error::Crashed(format!("cannot start '{}': {e}", self.cmd.display()))
    }

    /// A spec that runs `cmd` with no arguments or options, named after it.
    pub fn new(cmd: impl Into<PathBuf>) -> EngineSpec {
        let cmd = cmd.into();
        EngineSpec {
            name: default_name(&cmd),
            cmd,
            args: Vec::new(),
            options: Vec::new(),
            tc: None,
        }
    }

    /// Parse an engine given on the command line: keyed fields, or a bare
    /// path.
    pub fn parse(text: &str) -> Result<EngineSpec, Error> {
        let keyed = ["cmd=", "name=", "tc=", "arg=", "option."]
            .iter()
            .any(|k| text.starts_with(k));
        if !keyed {
            return Ok(EngineSpec::new(text));
        }
        let mut fields = Fields::default();
        for field in text.split(',') {
            fields.add(field)?;
        }
        let cmd = fields.cmd.filter(|c| !c.is_empty());
        let cmd = cmd.ok_or_else(|| Error::Spec("an engine needs cmd=PATH".into()))?;
        let mut spec = EngineSpec::new(cmd);
        if let Some(name) = fields.name {
            spec.name = name;
        }
        spec.args = fields.args;
        spec.options = fields.options;
        spec.tc = fields.tc;
        Ok(spec)
    }

    /// Parse settings for every engine (cutechess's `-each`): only the
    /// `arg=` and `option.` fields make sense there.
    pub fn parse_each(text: &str) -> Result<EngineSpec, Error> {
        let shared = |f: &str| f.starts_with("arg=") || f.starts_with("option.");
        if !text.split(',').all(shared) {
            return Err(Error::Spec(
                "--each takes only arg= and option. fields".into(),
            ));
        }
        EngineSpec::parse(&format!("cmd=each,{text}"))
    }
}

/// The fields of a keyed spec as they are read.
#[derive(Default)]
struct Fields {
    cmd: Option<String>,
    name: Option<String>,
    args: Vec<String>,
    options: Vec<(String, String)>,
    tc: Option<TimeControl>,
}

impl Fields {
    fn add(&mut self, field: &str) -> Result<(), Error> {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| Error::Spec(format!("engine field '{field}' is not KEY=VALUE")))?;
        match key {
            "cmd" => self.cmd = Some(value.to_string()),
            "name" => self.name = Some(value.to_string()),
            "arg" => self.args.push(value.to_string()),
            "tc" => {
                let tc = value
                    .parse()
                    .map_err(|e| Error::Spec(format!("tc={value}: {e}")))?;
                self.tc = Some(tc);
            }
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.is_empty() => {
                    (self.options).push((option.to_string(), value.to_string()))
                }
                _ => return Err(Error::Spec(format!("unknown engine field '{key}'"))),
            },
        }
        Ok(())
    }
}

/// The program's file name without its extension.
fn default_name(cmd: &Path) -> String {
    cmd.file_stem().map_or_else(
        || cmd.to_string_lossy().into_owned(),
        |s| s.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_spec_forms() {
        let bare = EngineSpec::parse("target/release/bashni").unwrap();
        assert_eq!(bare.name, "bashni");
        assert_eq!(bare.cmd, PathBuf::from("target/release/bashni"));

        let full =
            EngineSpec::parse("cmd=./eng,name=Old,arg=-q,option.Hash=16,option.Move Overhead=30")
                .unwrap();
        assert_eq!(full.name, "Old");
        assert_eq!(full.args, vec!["-q".to_string()]);
        assert_eq!(
            full.options,
            vec![
                ("Hash".to_string(), "16".to_string()),
                ("Move Overhead".to_string(), "30".to_string())
            ]
        );
        assert!(EngineSpec::parse("name=x").is_err());
        assert!(EngineSpec::parse("cmd=,name=x").is_err());
        assert!(EngineSpec::parse("cmd=x,colour=red").is_err());
        assert!(EngineSpec::parse("cmd=x,option.=3").is_err());
        let odds = EngineSpec::parse("cmd=x,tc=20+0.2").unwrap();
        assert_eq!(odds.tc, "20+0.2".parse().ok());
        assert_eq!(bare.tc, None);
        let bad = EngineSpec::parse("cmd=x,tc=fast").unwrap_err().to_string();
        assert!(bad.contains("tc=fast"), "{bad}");
        assert!(EngineSpec::parse_each("tc=5").is_err());
        let each = EngineSpec::parse_each("option.Hash=64,arg=-v").unwrap();
        assert_eq!(each.options, vec![("Hash".to_string(), "64".to_string())]);
        assert_eq!(each.args, vec!["-v".to_string()]);
        assert!(EngineSpec::parse_each("cmd=y").is_err());
        assert!(EngineSpec::parse_each("name=y").is_err());
    }
}
