//! The build pipeline, in the order a resource travels through it: load a
//! kustomization file, read its resources, plan the plugin calls its fields
//! become, accumulate, run components, record origins, then sort and write.

pub mod accumulator;
pub mod builder;
pub mod crds;
pub mod kustomization;
pub mod origin;
pub mod output;
pub mod plan;
pub mod render;
pub mod review;
pub mod write_output;
