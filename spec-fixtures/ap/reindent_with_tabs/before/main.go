func main() {
	if ok {
		do()
	}
}
