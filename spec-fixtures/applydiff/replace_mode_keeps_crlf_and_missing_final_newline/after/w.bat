@echo off
echo new
echo done