// Package deploy tests the deployment files at the repository root: docker-compose.yml, the
// Dockerfile and .dockerignore. No Docker engine runs in CI, so the compose file is loaded and
// validated with compose-go, the reference implementation `docker compose` itself uses, and its
// services, images, commands and SVC_* variables are checked against the code.
package deploy
