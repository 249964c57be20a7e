# streamdb build targets. `make run` and `make test` are the two commands the
# README promises work on a fresh machine.

GO            ?= go
BIN           := bin
DATA_DIR      ?= ./streamdb-data
LISTEN        ?= 127.0.0.1:6875
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build run test lint bench fuzz slt-full kafka clean

build:
	$(GO) build -o $(BIN)/ ./cmd/...

run: build
	$(BIN)/streamdb --listen $(LISTEN) --data-dir $(DATA_DIR)

test: build
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

lint:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf $(BIN)
