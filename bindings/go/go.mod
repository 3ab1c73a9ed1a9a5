module github.com/gcmsiv/gcmsiv/bindings/go

go 1.21
