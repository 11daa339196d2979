// placeholder; implementation pending
