/**
 * The {@code cuda} backend: CUDA devices through the driver API, called with {@code java.lang.foreign}.
 *
 * <h2>Pieces</h2>
 * {@link dev.zarrdirect.cuda.CudaBackendProvider} probes (never throwing) and opens
 * {@link dev.zarrdirect.cuda.CudaBackend}, which owns device memory ({@link dev.zarrdirect.cuda.CudaBuffer}),
 * pinned host memory, copies, batched region copies and fills (one scatter launch), the codecs of
 * {@link dev.zarrdirect.cuda.CudaCodecProvider} and a direct file reader.
 *
 * <h2>Kernels</h2>
 * Device code comes from the kernels module's fatbin ({@code dev/zarrdirect/kernels/zd_kernels.fatbin}),
 * built ahead of time with nvcc and loaded with {@code cuModuleLoadData}; no NVRTC at run time.
 * For kernel work, {@code -Dzarrdirect.cuda.kernelImage=FILE} loads another fatbin instead (a variant
 * built with {@code nvcc -fatbin -D...}; {@code tools/gpu/kernel-variants.sh} times several in one call).
 *
 * <h2>Settings</h2>
 * System properties: {@code zarrdirect.cuda.reader} (cufile, threaded, auto), {@code zarrdirect.cuda.batchSize},
 * {@code zarrdirect.cuda.batchBytes} (decoded bytes a device batch holds at most; 1 GiB),
 * {@code zarrdirect.cuda.poolRetainedBytes}, {@code zarrdirect.cuda.pinnedRetainedBytes},
 * {@code zarrdirect.cuda.readerThreads}, {@code zarrdirect.cuda.readerTaskBytes},
 * {@code zarrdirect.cuda.cufileThreads}, {@code zarrdirect.cuda.cufileBounceBytes},
 * {@code zarrdirect.cuda.zstdThreads}, {@code zarrdirect.cuda.zstdMultiPassMin} (frames above this many decoded
 * bytes, default 256 KiB - 1, use the block-parallel path; -1 turns it off), {@code zarrdirect.cuda.zstdMultiPassThreads}
 * (threads per group of its execute launch: default 1024 with the shared-memory window, 512 in place),
 * {@code zarrdirect.cuda.zstdMultiPassWindow} (build each block in shared memory where the device has
 * 217 KiB a group; default true), {@code zarrdirect.cuda.zstdMultiPassJump} (pointer jumping for batches
 * of short output; default true), {@code zarrdirect.cuda.zstdMultiPassSameRound} (default false),
 * {@code zarrdirect.cuda.zstdMultiPassEntropyPairs} (entropy pass decodes two blocks a group; default true),
 * {@code zarrdirect.cuda.zstdMultiPassEntropyWaves} (entropy-pass groups launched, in multiples of those resident; 4),
 * {@code zarrdirect.cuda.zstdMultiPassSortFrames} (a batch's frames ordered by encoded size, so that the blocks
 * sharing an entropy group are alike; default true),
 * {@code zarrdirect.cuda.zstdMultiPassExecGroupsPerFrame} (execute-pass groups per frame of a batch at most; 2),
 * {@code zarrdirect.cuda.zstdMultiPassSeqMin}, {@code zstdMultiPassSeqLanes}, {@code zstdMultiPassSeqItems},
 * {@code zstdMultiPassSeqAbove}, {@code zstdMultiPassSeqSized} (the sequence pass: which blocks, its launch shape,
 * which batches; see {@link dev.zarrdirect.cuda.codec.MultiPassLaunch}),
 * {@code zarrdirect.cuda.zstdMultiPassDefer} (batches whose largest frame has this many blocks execute without
 * waiting, then resolve; 64, 0 never), {@code zarrdirect.cuda.zstdMultiPassResolveParts} (slices of a block in
 * the resolve pass at most; 8),
 * {@code zarrdirect.cuda.schedule} (how host threads wait for the device: auto, spin, yield, blocking; auto),
 * {@code zarrdirect.cuda.readerTrace} (print each threaded read's per-thread times; default false),
 * {@code zarrdirect.cuda.cufileStrict} (fail instead of falling back to threaded reads where cuFile
 * cannot register a file), {@code zarrdirect.trackBuffers}.
 */
package dev.zarrdirect.cuda;
