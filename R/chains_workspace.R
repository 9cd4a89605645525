# Memory a chain holds across the chunks of one run (src/ffi_workspace.c).
#
# A kernel whose field `workspace` is TRUE receives, in every call of its
# step(), the argument `workspace`: an opaque object created once per run
# of a chain by chain_run() (R/chains.R) and dropped when the run ends. The
# mixture kernels (R/mixture.R, R/mixture_dp.R) hand it to the engine, which
# then keeps its scratch memory in it instead of allocating it again in
# every chunk (at N = 1e6 about 13 MB per chunk, left to the garbage
# collector), and works on the labels of the chain's state in one of two
# label vectors of the workspace, used in turn, instead of allocating a new
# one per chunk. The chunk's input state is never modified, so chunks stay
# transactional (an interrupt or error leaves the chain's last state
# intact).
#
# The workspace never reaches a fit: when the run ends (completed,
# interrupted or failed), chain_detach() takes the label vector of the
# chain's state out of the workspace (which then never writes it again; no
# copy is made). A workspace is an external pointer whose
# memory is R vectors; nothing else refers to it, so it is collected with
# the frame of chain_run(). The draws do not depend on it (a run with and
# one without a workspace give identical results).

# The workspace of one run of a chain of `kernel` (NULL: the kernel takes none).
chain_workspace <- function(kernel) {
  if (isTRUE(kernel$workspace)) .Call(C_ffi_workspace_new) else NULL
}

# kernel$step() with the workspace when there is one (and the step takes
# it: a wrapper of the kernel's step may not).
kernel_step <- function(kernel, ws, state, n, thin, offset, warmup) {
  if (is.null(ws) || !"workspace" %in% names(formals(kernel$step)))
    kernel$step(state, n, thin, offset, warmup)
  else kernel$step(state, n, thin, offset, warmup, workspace = ws)
}

# The chain with a state that shares no memory with the workspace.
chain_detach <- function(chain, ws) {
  if (is.null(ws) || !is.list(chain$state) || !is.integer(chain$state$labels)) return(chain)
  chain$state$labels <- .Call(C_ffi_workspace_detach, ws, chain$state$labels)
  chain
}
