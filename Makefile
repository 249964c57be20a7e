# streamdb build targets. `make run` and `make test` are the two commands the
# README promises work on a fresh machine.

GO            ?= go
BIN           := bin
DATA_DIR      ?= ./streamdb-data
LISTEN        ?= 127.0.0.1:6875
KAFKA_LISTEN  ?= 127.0.0.1:9092
SLT_CORPUS    ?= ../shared/sqllogictest/sqlite
FUZZTIME      ?= 30s
VERSION       ?= $(shell git describe --always --dirty 2>/dev/null)
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build run test compat lint bench bench-restart fuzz slt-full kafka clean

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/ ./cmd/...

# TLS with a self-signed certificate created in the data directory on
# first start, so clients that require TLS (lib/pq's default) connect.
run: build
	$(BIN)/streamdb --listen $(LISTEN) --data-dir $(DATA_DIR) --tls-self-signed

# -short skips the slow end-to-end tests (e2e: Kafka, processes, kill -9).
# STREAMDB_E2E_BACKLOG=n scales e2e.TestKafkaBacklog (200,000 records by
# default) to the millions; `go test ./e2e -run '^$$' -bench KafkaIngest`
# compares streamdb's ingestion with a bare franz-go consumer
# (STREAMDB_E2E_BENCH_RECORDS=n records, 300,000 by default).
test: build
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 25m ./...

# The clients that need another runtime: psycopg 3, PostgreSQL JDBC,
# node-postgres, and the Python ecosystem's asyncpg, SQLAlchemy, pgcli and
# dbt's statements (compat/clients), installed by .ci/run. psql, pgx,
# lib/pq and Grafana's queries run in make test.
compat:
	$(GO) test -tags compat -count=1 -timeout 10m -run 'TestPsycopg|TestJDBC|TestNodePostgres|TestAsyncpg|TestSQLAlchemy|TestPgcli|TestDBT|TestListenNotify' -v ./compat/

lint:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(GO) mod tidy -diff

# The Nexmark harness (bench/nexmark): streamdb vs PostgreSQL 15 and a Go
# loop; writes bench/results/latest.{json,md,png}. BENCH_EVENTS=n scales it.
bench: build
	BENCH_EVENTS=$(BENCH_EVENTS) BENCH_QUERIES=$(BENCH_QUERIES) $(GO) run ./bench/nexmark -streamdb $(BIN)/streamdb

# Restarts after kill -9 (bench/restart): views restored from their
# persisted state against recomputed from their inputs, with memory;
# writes bench/results/restart.{json,md}.
bench-restart: build
	$(GO) run ./bench/restart -streamdb $(BIN)/streamdb

# The whole SQLite corpus in both modes (the fast subset runs in make test).
slt-full: build
	$(BIN)/slt --mode batch $(SLT_CORPUS) sqllogictest/suites
	$(BIN)/slt --mode incremental $(SLT_CORPUS) sqllogictest/suites

# A development Kafka broker (kfake) that creates topics on first use.
kafka: build
	$(BIN)/devkafka --listen $(KAFKA_LISTEN) --partitions 3

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzServerMessages -fuzztime $(FUZZTIME) ./pgwire
	$(GO) test -run '^$$' -fuzz FuzzServer -fuzztime $(FUZZTIME) ./internal/scram
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./sql/parser
	$(GO) test -run '^$$' -fuzz FuzzLex -fuzztime $(FUZZTIME) ./sql/parser
	$(GO) test -run '^$$' -fuzz FuzzDecodeKey -fuzztime $(FUZZTIME) ./types
	$(GO) test -run '^$$' -fuzz FuzzDecodeValue -fuzztime $(FUZZTIME) ./types
	$(GO) test -run '^$$' -fuzz FuzzParseText -fuzztime $(FUZZTIME) ./types
	$(GO) test -run '^$$' -fuzz FuzzParseBinary -fuzztime $(FUZZTIME) ./types
	$(GO) test -run '^$$' -fuzz FuzzLike -fuzztime $(FUZZTIME) ./planner/scalar
	$(GO) test -run '^$$' -fuzz FuzzBindSQL -fuzztime $(FUZZTIME) ./sql
	$(GO) test -run '^$$' -fuzz FuzzStatement -fuzztime $(FUZZTIME) ./sql
	$(GO) test -run '^$$' -fuzz FuzzDecodeJSON -fuzztime $(FUZZTIME) ./sources/kafka
	$(GO) test -run '^$$' -fuzz FuzzDecodeCSV -fuzztime $(FUZZTIME) ./sources/kafka
	$(GO) test -run '^$$' -fuzz FuzzDebezium -fuzztime $(FUZZTIME) ./sources/kafka
	$(GO) test -run '^$$' -fuzz FuzzPgoutput -fuzztime $(FUZZTIME) ./sources/postgres
	$(GO) test -run '^$$' -fuzz FuzzCopyDecoder -fuzztime $(FUZZTIME) ./sources/postgres

clean:
	rm -rf $(BIN)
