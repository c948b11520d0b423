//! Lines on standard output that end the process quietly once nobody
//! reads them (a GUI that went away, `bashni analyse ... | head -1`):
//! a closed pipe means "quit", not a crash.

use std::io::Write;

/// Write one line; if standard output is closed, exit with success.
pub fn write_line(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

/// `println!` for standard output that treats a closed pipe as `quit`.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::stdout::write_line(format_args!($($arg)*))
    };
}
