//! gpuprof: compile, verify, time and profile CUDA kernel variants under
//! Nsight Compute, and explain in one self-contained HTML report what each
//! optimization did. The stages follow the data flow, left to right:
//! config → build → harness → ncu → analysis → render, with `pipeline`
//! calling them in order and `cli` holding only argument types. `model`
//! (results.json's schema) is the leaf they all convert into: it imports
//! no other module. docs/architecture.md draws the stages and the data
//! that passes between them.

pub mod analysis;
pub mod build;
pub mod check;
pub mod cli;
pub mod config;
pub mod doctor;
pub mod error;
pub mod harness;
pub mod init;
pub mod model;
pub mod ncu;
pub mod pipeline;
pub mod process;
pub mod render;
pub mod routing;
