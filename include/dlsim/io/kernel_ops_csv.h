// The operator list of `dlsim kernels OPS.csv`: one kernel per row, as cost::KernelOp.
//
// Columns (a header row; `#` lines are comments; a cell may be empty where the column does not apply):
//   op           gemm | attention_fwd | attention_bwd | attention_fwd_bwd | elementwise   (required;
//                attention_fwd_bwd: a forward and a backward call of the shape, timed together)
//   dtype        fp32 | tf32 | fp16 | bf16 | fp8 | int8                        (default bf16)
//   m, n, k      GEMM sizes, C[m,n] = A[m,k] B[k,n]                            (gemm: required)
//   batch        batched GEMMs or attention sequences                          (default 1)
//   heads, kv_heads, seq_q, seq_kv, head_dim, causal (true/false/1/0)          (attention: heads, seq_q,
//                head_dim required; kv_heads defaults to heads, seq_kv to seq_q, causal to true)
//   window       a causal kernel's sliding window, keys per query (AttentionShape::window)   (default 0:
//   none) backend      the attention kernel family (cost::AttentionBackend): flash, cudnn, efficient, triton,
//                math, default (what PyTorch's SDPA picks on the GPU), model (the architecture's own
//                constants; also when empty)
//   bytes        bytes read + written                                          (elementwise: required)
//   measured_ms  the measured time, to score the prediction                    (optional)
// Every bad cell is an error naming FILE:LINE:COLUMN and the column; nothing is priced then.
#ifndef DLSIM_IO_KERNEL_OPS_CSV_H_
#define DLSIM_IO_KERNEL_OPS_CSV_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/kernel_op.h"

namespace dlsim::io {

// Reads `path` (io::ReadTextFile: a regular file within the input limit) and parses it.
Result<std::vector<cost::KernelOp>> ReadKernelOpsCsv(const std::string& path);
// Parses CSV text; `file_name` names it in errors.
Result<std::vector<cost::KernelOp>> ParseKernelOpsCsv(std::string_view text, const std::string& file_name);

}  // namespace dlsim::io

#endif  // DLSIM_IO_KERNEL_OPS_CSV_H_
