#pragma once
// The stand-in's GPUs: COLLBENCH_STANDIN_GPUS of them (8), of which CUDA_VISIBLE_DEVICES (a list
// of indices) shows some, renumbered from 0 as CUDA does; a device's bus id is its physical one.

namespace standin {

// The device a call runs on: cudaSetDevice's, per thread.
int& current_device();
int device_count();
bool valid_device(int device);
// The physical index of visible device `device`.
int physical_device(int device);

}  // namespace standin
