module example.com/pair

go 1.26
