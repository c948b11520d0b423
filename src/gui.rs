//! `bashni gui`: the play server of `bashni serve`, with the same page,
//! for one person on this computer: it listens on 127.0.0.1 only (a free
//! port by default), keeps its games in a database in the user's data
//! directory, and can open the page in the browser.

use crate::serve::{Banner, ServeArgs};
use anyhow::Context;
use bashni_host::spec::EngineSpec;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

/// Options of `bashni gui`.
#[derive(clap::Args, Debug)]
pub struct GuiArgs {
    /// Port on 127.0.0.1; a free one by default.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// The engine, as for `match`: `cmd=PATH[,arg=ARG...][,option.NAME=VALUE...]`
    /// or a bare PATH; this program by default.
    #[arg(long, value_parser = crate::serve::parse_engine)]
    pub engine: Option<EngineSpec>,
    /// `sqlite:PATH` or `postgres://...`; by default `gui.db` in the
    /// user's data directory (`$XDG_DATA_HOME/bashni`, else
    /// `~/.local/share/bashni`).
    #[arg(long)]
    pub database: Option<String>,
}

/// Serve the page until the process is ended.
pub fn run(args: GuiArgs) -> anyhow::Result<()> {
    let database = match args.database {
        Some(url) => url,
        None => default_database()?,
    };
    let serve = ServeArgs {
        listen: SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)),
        database,
        engine: args.engine,
        open: args.open,
        ..ServeArgs::defaults()?
    };
    crate::serve::start(serve, Banner::Gui)
}

/// `sqlite:` of `gui.db` in the user's data directory, created if
/// missing.
fn default_database() -> anyhow::Result<String> {
    let folder = data_directory()?.join("bashni");
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    Ok(format!("sqlite:{}", folder.join("gui.db").display()))
}

/// `$XDG_DATA_HOME`, else `$HOME/.local/share`.
fn data_directory() -> anyhow::Result<PathBuf> {
    let set = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = set("XDG_DATA_HOME") {
        return Ok(PathBuf::from(dir));
    }
    let home = set("HOME").context("neither XDG_DATA_HOME nor HOME is set: pass --database")?;
    Ok(PathBuf::from(home).join(".local/share"))
}
