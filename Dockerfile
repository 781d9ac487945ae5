# unitrag serve in a container. Untested here (no Docker on the machines this was written on):
# the steps are the README's, run as in CI. Build: docker build -t unitrag .
# Run (the artifact's folder mounted, so a new build renamed into it is swapped in without a restart):
#   docker run --rm -p 127.0.0.1:8000:8000 -v "$PWD/dist:/kb:ro" \
#       -e UNITRAG_API_KEYS="sha256:<hex>=clinician" unitrag
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
    UNITRAG_MODEL_CACHE=/var/cache/unitrag
WORKDIR /app
COPY pyproject.toml constraints.txt README.md LICENSE ./
COPY unitrag ./unitrag
# serve: FastAPI + uvicorn; api: litellm, for an LLM (UNITRAG_LLM=litellm:<model> and its key at run time)
RUN pip install -c constraints.txt ".[serve,api]" \
    && useradd --system --uid 10001 unitrag && mkdir -p /var/cache/unitrag && chown unitrag /var/cache/unitrag
USER unitrag
EXPOSE 8000
# Inside the container the server listens on every interface; publish the port on loopback or behind a proxy.
# One worker per CPU you give it is a good start: each holds its own copy of the knowledge base.
CMD ["unitrag", "serve", "--kb", "/kb/kb.duckdb", "--host", "0.0.0.0", "--port", "8000", "--workers", "1"]
