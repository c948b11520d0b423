//! `bashni gui`: a board in the browser, served from 127.0.0.1, that drives
//! an engine process over the text protocol exactly as any GUI host would.
//! Each page (tab) gets its own game and its own engine process.

pub(crate) mod game;
mod messages;
mod security;
mod server;
mod session;

use anyhow::Context;
use bashni_host::spec::EngineSpec;
use std::io::Write;
use std::sync::Arc;

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
    #[arg(long, value_parser = EngineSpec::parse)]
    pub engine: Option<EngineSpec>,
}

/// Serve the board until the process is ended.
pub fn run(args: GuiArgs) -> anyhow::Result<()> {
    let engine = match args.engine {
        Some(engine) => engine,
        None => own_engine()?,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the server runtime")?;
    runtime.block_on(serve(args.port, args.open, engine))
}

/// This very program, which is the engine when run without arguments.
fn own_engine() -> anyhow::Result<EngineSpec> {
    let cmd = std::env::current_exe().context("cannot find this program to run as the engine")?;
    Ok(EngineSpec {
        name: "bashni".into(),
        ..EngineSpec::new(cmd)
    })
}

async fn serve(port: u16, open: bool, engine: EngineSpec) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    let port = listener.local_addr()?.port();
    let token = security::new_token();
    let url = format!("http://127.0.0.1:{port}/?token={token}");
    println!("bashni gui: open {url}");
    std::io::stdout().flush()?;
    if open && let Err(e) = open::that_detached(&url) {
        eprintln!("cannot open a browser ({e}); open the URL above by hand");
    }
    let state = Arc::new(server::AppState {
        port,
        token,
        engine,
    });
    axum::serve(listener, server::router(state))
        .await
        .context("the server stopped")
}
