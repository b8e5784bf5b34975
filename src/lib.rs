//! gpuprof: compile, verify, time and profile CUDA kernel variants under
//! Nsight Compute, and explain in one self-contained HTML report what each
//! optimization did. The modules follow the data flow, left to right:
//! config → build → harness → ncu → model → analysis → render, with
//! `pipeline` calling them in order and `cli` holding only argument types.

pub mod analysis;
pub mod build;
pub mod cli;
pub mod config;
pub mod doctor;
pub mod harness;
pub mod init;
pub mod model;
pub mod ncu;
pub mod pipeline;
pub mod process;
pub mod render;
