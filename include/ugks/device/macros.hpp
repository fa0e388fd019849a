#pragma once
/// Host/device annotations. Physics lives in small UGKS_HOST_DEVICE functions; backends only schedule them.
#if defined(UGKS_USE_CUDA) && defined(__CUDACC__)
#define UGKS_HOST_DEVICE __host__ __device__
#define UGKS_DEVICE __device__
#else
#define UGKS_HOST_DEVICE
#define UGKS_DEVICE
#endif
#define UGKS_LAMBDA [=] UGKS_HOST_DEVICE
