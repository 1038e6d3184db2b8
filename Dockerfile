# Dockerfile - the fabcert image for Kubernetes (`fabcert k8s`,
# docs/kubernetes.md): the README's install, `make deps` then `make install
# PREFIX=/opt/fabcert`, in a build stage; the image itself holds the
# installed tree, the libraries its programs link (nothing is fetched when
# it runs) and sshd, which the Kubeflow MPI Operator's workers run and its
# launcher's mpirun reaches them through.
#
#   docker build -t REGISTRY/fabcert:TAG .
#
# The nccl backend needs CUDA and NCCL in both stages: build FROM a Debian
# 12 image that has them under /usr/local/cuda (--build-arg BASE=...) and
# add their runtime libraries to the second stage; without them the GPU
# plugin is left out (make says so) and GPU stages skip, never pass.
# tests/e2e/k8s.t checks that every library the installed programs link
# comes with a package installed below.
ARG BASE=debian:12

FROM ${BASE} AS build
RUN apt-get update && apt-get install -y --no-install-recommends make ca-certificates
COPY . /src
WORKDIR /src
RUN make deps && make -j"$(nproc)" install PREFIX=/opt/fabcert

FROM ${BASE}
# the run-time packages (k8s.t reads this list: one package a line)
RUN apt-get update && apt-get install -y --no-install-recommends \
        openmpi-bin \
        libfyaml0 \
        libjansson4 \
        libxxhash0 \
        libsodium23 \
        libibverbs1 \
        ibverbs-providers \
        openssh-server \
        openssh-client \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /run/sshd \
    && printf 'Host *\n    StrictHostKeyChecking no\n    UserKnownHostsFile /dev/null\n' \
        >> /etc/ssh/ssh_config
COPY --from=build /opt/fabcert /opt/fabcert
ENV PATH=/opt/fabcert/bin:$PATH
WORKDIR /var/lib/fabcert
CMD ["fabcert", "--help"]
