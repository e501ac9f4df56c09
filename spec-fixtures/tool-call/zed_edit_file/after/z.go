func main() {
	fmt.Println("hello, world")
}
