fn main() {
    std::process::exit(bashni::cli::run());
}
