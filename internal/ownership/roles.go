package ownership

import (
	"regexp"
	"strings"
)

// Database clients, by language. A frame of one of these is database
// work: the query's round trip, its encoding and decoding, and an ORM
// building and materialising objects.

// goDBModules are Go database drivers and ORMs (database/sql is marked
// as standard library).
var goDBModules = []string{
	"github.com/lib/pq", "github.com/jackc/pgx", "github.com/jackc/pgconn", "github.com/go-sql-driver/mysql",
	"github.com/mattn/go-sqlite3", "modernc.org/sqlite", "gorm.io/", "github.com/jmoiron/sqlx", "entgo.io/ent",
	"github.com/uptrace/bun", "zombiezen.com/go/sqlite", "crawshaw.io/sqlite", "github.com/ClickHouse/clickhouse-go",
	"go.mongodb.org/mongo-driver", "github.com/microsoft/go-mssqldb", "github.com/denisenkom/go-mssqldb",
	"github.com/sijms/go-ora", "github.com/go-pg/pg", "github.com/gocql/gocql", "github.com/volatiletech/sqlboiler",
	"github.com/Masterminds/squirrel", "github.com/doug-martin/goqu",
}

func goRole(mod string) Role {
	for _, p := range goDBModules {
		if strings.HasPrefix(mod, p) && (len(mod) == len(p) || strings.HasSuffix(p, "/") || mod[len(p)] == '/') {
			return Database
		}
	}
	return NoRole
}

// pyDBPackages are Python database drivers (DB-API) and ORMs.
var pyDBPackages = map[string]bool{
	"psycopg": true, "psycopg2": true, "psycopg_pool": true, "pymysql": true, "MySQLdb": true, "mysql": true,
	"sqlalchemy": true, "asyncpg": true, "aiosqlite": true, "aiomysql": true, "aiopg": true, "peewee": true,
	"pony": true, "tortoise": true, "databases": true, "pymongo": true, "motor": true, "cx_Oracle": true,
	"oracledb": true, "pyodbc": true, "pymssql": true, "sqlmodel": true, "apsw": true, "pysqlite3": true,
	"clickhouse_driver": true, "cassandra": true,
}

// pyCursorExecute matches a DB-API cursor's execute methods as py-spy
// names them ("Cursor.execute", "BaseCursor.executemany").
var pyCursorExecute = regexp.MustCompile(`(?i)cursor\w*\.execute(many|script)?$`)

func pyRole(pkg, file, name string) Role {
	switch {
	case pyDBPackages[pkg]:
		return Database
	case pkg == "django" && strings.Contains(file, "/django/db/"):
		return Database // the ORM: QuerySet evaluation, the SQL compiler, cursor wrappers
	case pyCursorExecute.MatchString(name):
		return Database
	}
	return NoRole
}

// dbRole is Database for a package (a gem, a node package) in dbs, the
// database clients of its language.
func dbRole(dbs map[string]bool, pkg string) Role {
	if dbs[pkg] {
		return Database
	}
	return NoRole
}

// rbDBGems are Ruby database clients and ORMs.
var rbDBGems = map[string]bool{
	"activerecord": true, "sqlite3": true, "pg": true, "mysql2": true, "trilogy": true, "sequel": true,
	"rom-sql": true, "mongo": true, "mongoid": true, "activerecord-jdbc-adapter": true,
}

// nodeDBPackages are node database clients and ORMs.
var nodeDBPackages = map[string]bool{
	"pg": true, "pg-pool": true, "pg-protocol": true, "postgres": true, "mysql": true, "mysql2": true, "sqlite3": true,
	"better-sqlite3": true, "sequelize": true, "typeorm": true, "@prisma/client": true, "prisma": true, "knex": true,
	"mongodb": true, "mongoose": true, "drizzle-orm": true, "kysely": true, "tedious": true, "oracledb": true,
	"@mikro-orm/core": true, "objection": true, "bookshelf": true, "mariadb": true,
}

// jvmDBPackages are JDBC, JPA and the database clients and ORMs of the
// JVM.
var jvmDBPackages = []string{
	"java.sql.", "javax.sql.", "jakarta.persistence.", "javax.persistence.", "org.postgresql.", "com.mysql.",
	"org.mariadb.", "org.h2.", "org.sqlite.", "org.hsqldb.", "org.apache.derby.", "oracle.jdbc.",
	"com.microsoft.sqlserver.", "org.hibernate.", "com.zaxxer.hikari.", "org.jooq.", "org.springframework.jdbc.",
	"org.springframework.orm.", "org.springframework.data.jpa.", "org.apache.ibatis.", "org.mybatis.",
	"org.jdbi.", "com.mongodb.", "org.mongodb.", "com.datastax.", "io.r2dbc.", "io.vertx.pgclient.", "io.vertx.sqlclient.",
	"org.eclipse.persistence.",
}

// jvmPreparedExecute matches JDBC's statement execution on any driver's
// class ("PgPreparedStatement.executeQuery").
var jvmPreparedExecute = regexp.MustCompile(`(PreparedStatement|Statement)[\w$]*\.execute\w*$`)

func jvmRole(pkg, name string) Role {
	if hasAnyPrefix(pkg+".", jvmDBPackages) {
		return Database
	}
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	if jvmPreparedExecute.MatchString(name) {
		return Database
	}
	return NoRole
}

// rustDBCrates are Rust database clients and ORMs.
var rustDBCrates = map[string]bool{
	"sqlx": true, "sqlx_core": true, "sqlx_postgres": true, "sqlx_mysql": true, "sqlx_sqlite": true, "diesel": true,
	"rusqlite": true, "tokio_postgres": true, "postgres": true, "mysql": true, "mysql_async": true, "sea_orm": true,
	"libsqlite3_sys": true, "mongodb": true, "deadpool_postgres": true, "bb8_postgres": true, "postgres_protocol": true,
	"tiberius": true, "scylla": true,
}

func rustRole(crate string) Role {
	if rustDBCrates[crateKey(crate)] {
		return Database
	}
	return NoRole
}

// pyExecuteLine matches a Python source line that runs a query through a
// DB-API cursor or connection ("cur.execute(sql, args)",
// "conn.executemany(...)").
var pyExecuteLine = regexp.MustCompile(`\.execute(many|script)?\s*\(`)

// LineRole tells a role from a line of source, for profilers that show
// no frame for a call into C: py-spy shows a user's line calling
// sqlite3's Cursor.execute, written in C, but no frame for it. lang is a
// Lang* constant. Only Python's DB-API calls are recognised; the result
// is a heuristic on the line's text.
func LineRole(lang, text string) Role {
	if lang == LangPython && pyExecuteLine.MatchString(text) {
		return Database
	}
	return NoRole
}
