"""Checks of the container build (Dockerfile, .dockerignore) and of deploy/, made without a
Docker engine: the files are read and checked against the code, and what the image would run
(its health check, its build of the project) is run here instead."""
