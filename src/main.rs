//! The `gpuprof` binary: parses the command line and hands it to the library.

fn main() {
    println!("gpuprof");
}
