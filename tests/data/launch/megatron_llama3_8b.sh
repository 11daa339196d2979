#!/bin/bash
# A Megatron-LM launch in the shape of examples/llama/train_llama3_8b_h100_fp8.sh (written for dlsim's tests):
# shell variables, arrays, continued lines and comments, as launch scripts have them.
GPUS_PER_NODE=8
NUM_LAYERS=32
SEQ_LENGTH=8192
TP_SIZE=2
CP_SIZE=${CP:-2}

MODEL_ARGS=(
    --use-mcore-models
    --num-layers $NUM_LAYERS
    --hidden-size 4096 --ffn-hidden-size 14336
    --num-attention-heads 32
    --group-query-attention --num-query-groups 8   # GQA
    --kv-channels 128
    --seq-length ${SEQ_LENGTH} --max-position-embeddings ${SEQ_LENGTH}
    --position-embedding-type rope --rotary-base 1000000
    --swiglu --normalization RMSNorm
    --untie-embeddings-and-output-weights --disable-bias-linear
    --attention-dropout 0.0 --hidden-dropout 0.0
)
TRAINING_ARGS=(
    --micro-batch-size 1 --global-batch-size 128
    --lr 0.00015 --train-iters 1000000
    --bf16 --use-distributed-optimizer
    --recompute-activations
)
MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size $TP_SIZE \
    --context-parallel-size $CP_SIZE \
    --sequence-parallel
)
DATA_ARGS=( --tokenizer-type HuggingFaceTokenizer --vocab-size 128256 --data-path /data/train_text_document )

torchrun --nproc_per_node $GPUS_PER_NODE pretrain_gpt.py \
    ${MODEL_ARGS[@]} ${TRAINING_ARGS[@]} ${MODEL_PARALLEL_ARGS[@]} ${DATA_ARGS[@]}
