// placeholder during build
